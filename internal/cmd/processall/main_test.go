package processall_test

import (
	"testing"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
)

func TestMain(m *testing.M) {
	cmdtest.Main(m)
}
