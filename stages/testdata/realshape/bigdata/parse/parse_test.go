package parse

import (
	"bufio"
	"os"
	"testing"
)

func TestFieldsOfTheCorpus(t *testing.T) {
	f, err := os.Open("testdata/corpus.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	n := 0
	for s.Scan() {
		if got := len(Fields(s.Text())); got != 3 {
			t.Fatalf("line %d: %d fields, want 3", n+1, got)
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("corpus has %d lines", n)
	}
}
