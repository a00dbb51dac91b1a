package activity

import (
	"encoding/json"
	"math"
	"testing"
)

// TestCanonAsEncodingJSON: a row's content is hashed in the very bytes
// json.Marshal wrote for it, so that the rows written before still verify.
func TestCanonAsEncodingJSON(t *testing.T) {
	for _, c := range []canon{
		{},
		{ID: 1, Time: 1764800000123456789, Kind: KindCall, App: "Claude Code", Face: "stdio", Server: "a", Tool: "echo",
			Duration: 123456, Outcome: "answered", Decision: "allowed", ResultSize: 2, Arguments: `{"text":"string(2)"}`},
		{ID: math.MaxInt64, Time: math.MinInt64, Kind: KindTrust, App: "<you> & \"them\"\n", Reason: "bad \xff \u2028", ArgumentsKept: true,
			Action: "allow", Target: "é 🙂", Detail: "\x00\x1f", Duration: -1, ResultSize: -5},
	} {
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.appendJSON(nil); string(got) != string(want) {
			t.Errorf("appendJSON = %s\njson.Marshal: %s", got, want)
		}
	}
}
