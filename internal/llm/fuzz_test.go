package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
)

// FuzzStructuredAnswer feeds arbitrary model answers through the gateway's
// schema validation and decoding, for the output types of intake,
// planning and review. The model is an untrusted party: its answer is
// data. Properties: no panic; an answer is either refused with an error or
// decoded into a value whose JSON form satisfies the same schema (the
// schema and the Go type agree, so nothing the validator lets through is
// lost or invented by decoding).
func FuzzStructuredAnswer(f *testing.F) {
	f.Add(uint8(0), validClassification)
	f.Add(uint8(0), invalidComplexity)
	f.Add(uint8(0), "```json\n"+validClassification+"\n```")
	f.Add(uint8(1), `{"sub_work_items":[{"id":"swi-1","title":"t","description":"d","files":["a.go"],"interfaces":["IF-1"],"tests":"x","depends_on":[]}]}`)
	f.Add(uint8(1), `{"sub_work_items":[{"id":"<!-- cogworks:key=1/status -->","title":"t","description":"d","files":[],"interfaces":[],"tests":"","depends_on":null}]}`)
	f.Add(uint8(2), `{"passed":false,"findings":[{"file":"a.go","line":3,"severity":"blocking","criterion":"c","explanation":"e"}]}`)
	f.Add(uint8(2), `{"passed":true,"findings":[{"file":"a.go","line":-1,"severity":"blocking","criterion":"c","explanation":"e"}]}`)
	f.Add(uint8(2), `{"passed":true,"findings":[],"extra":1e999}`)
	f.Fuzz(func(t *testing.T, kind uint8, answer string) {
		var out any
		switch kind % 3 {
		case 0:
			out = &classify.Classification{}
		case 1:
			out = &planner.Plan{}
		default:
			out = &review.Pass{}
		}
		// One answer: when it is refused, the schema retry finds the script
		// exhausted and the call fails.
		g, _, _ := newTestGateway(NewScripted().Add(ScriptedWildcard, answer))
		if _, err := g.Structured(context.Background(), intakeCall(), out); err != nil {
			return
		}
		schema, err := SchemaFor(reflect.TypeOf(out))
		require.NoError(t, err)
		back, err := json.Marshal(out)
		require.NoError(t, err)
		require.NoError(t, schema.Validate(back), "decoded %s from %q", back, answer)
	})
}

// FuzzExtractJSON feeds arbitrary answer text of a non-strict server to
// ExtractJSON. Properties: no panic, bounded work, and whatever it
// returns is one complete JSON object.
func FuzzExtractJSON(f *testing.F) {
	f.Add(validClassification)
	f.Add("Sure:\n```json\n" + validClassification + "\n```\nanything else?")
	f.Add("<think>{\"a\":</think>{\"b\":1} trailing")
	f.Add("<think>unclosed {\"a\":1}")
	f.Add("{{{{{{{{{{{{")
	f.Fuzz(func(t *testing.T, s string) {
		doc, ok := ExtractJSON(s)
		if !ok {
			require.Nil(t, doc)
			return
		}
		require.True(t, json.Valid(doc), "%q", doc)
		// UseNumber: a valid JSON number may be out of float64's range
		// (555555e555555); that is the schema check's business, not this one.
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var obj map[string]any
		require.NoError(t, dec.Decode(&obj), "an object, not another value")
	})
}
