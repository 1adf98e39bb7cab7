package secrets

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/stretchr/testify/require"
)

// testKeyPEM returns a fresh PKCS#8 RSA private key in PEM, generated
// rather than committed so that no secret scanner flags the repository.
func testKeyPEM(tb testing.TB, bits int) string {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, bits)
	require.NoError(tb, err)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(tb, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}
