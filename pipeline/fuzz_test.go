package pipeline

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseSnapshot feeds arbitrary comment bodies to the snapshot codec.
// Properties: it never panics; a block it accepts renders again without
// error, and that rendering parses back to a snapshot that renders to the
// same text (render/parse round-trip); a rendered block never contains
// "-->" before its own end, so nothing in it can close the HTML comment.
func FuzzParseSnapshot(f *testing.F) {
	block, err := RenderSnapshot(codecSampleSnapshot())
	require.NoError(f, err)
	f.Add(block)
	f.Add("### status\n\ntext -- with dashes -->\n\n" + block + "\n<sub>footer</sub>")
	f.Add(`<!-- cogworks:state {"schema_version":"1.0.0","repo":"a/b","work_item":1,"stage":"intake","artifacts":{},"ledger":{}} -->`)
	f.Add(`<!-- cogworks:state {"schema_version":"2.0.0"} -->`)
	f.Add(`<!-- cogworks:state {"schema_version":"1.0"} -->`)
	f.Add(`<!-- cogworks:state {not json} -->`)
	f.Add(`<!-- cogworks:state {"schema_version":"1.0.0","ledger":{"per_stage":{"x":{"cost_usd":1e999}}}} -->`)
	f.Add(`<!-- cogworks:state {"schema_version":"1.0.0","data":{"k":"a \u002d\u002d> b"}}`)
	f.Add("<!-- cogworks:state ")
	f.Fuzz(func(t *testing.T, body string) {
		s, found, err := ParseSnapshot(body)
		if !found {
			require.NoError(t, err)
			return
		}
		if err != nil {
			return
		}
		first, err := RenderSnapshot(s)
		require.NoError(t, err, "a parsed snapshot must render")
		inner := strings.TrimSuffix(strings.TrimPrefix(first, snapshotOpen), snapshotClose)
		assert.NotContains(t, inner, "--")
		assert.NotContains(t, inner, ">")
		again, found, err := ParseSnapshot(first)
		require.NoError(t, err)
		require.True(t, found)
		second, err := RenderSnapshot(again)
		require.NoError(t, err)
		require.Equal(t, first, second, "render/parse must round-trip")
	})
}

// FuzzParseLabels feeds arbitrary label lists (one label per line) to the
// label codec. Properties: no panic; decoding does not depend on order;
// Encode keeps every cogworks: label; Encode∘Parse is a fixed point.
func FuzzParseLabels(f *testing.F) {
	f.Add("cogworks:run\ncogworks:stage:intake\nbug")
	f.Add("cogworks:stage:review\ncogworks:stage:planning\ncogworks:processing")
	f.Add("cogworks:status:pending\ncogworks:status:failed\ncogworks:order:3\ncogworks:order:03")
	f.Add("cogworks:depends-on:12\ncogworks:depends-on:-1\ncogworks:depends-on:9999999999999999999999")
	f.Add("COGWORKS:RUN\ncogworks:\ncogworks:stage:\ncogworks:safety-critical\ncogworks:awaiting-review")
	f.Fuzz(func(t *testing.T, text string) {
		labels := strings.Split(text, "\n")
		ls := ParseLabels(labels)
		reversed := make([]string, len(labels))
		for i, l := range labels {
			reversed[len(labels)-1-i] = l
		}
		require.Equal(t, ls, ParseLabels(reversed), "order must not matter")
		enc := ls.Encode()
		for _, l := range labels {
			if IsCogWorksLabel(l) {
				require.Contains(t, enc, l, "Encode must keep every cogworks: label")
			}
		}
		require.Equal(t, ls, ParseLabels(enc), "Parse∘Encode must be the identity on decoded sets")
		require.Equal(t, enc, ParseLabels(enc).Encode())
	})
}
