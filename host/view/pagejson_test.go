package view

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// jsonMessage is rawMessage as encoding/json decodes it, the reference
// decodeMessage is held to.
type jsonMessage struct {
	T         string                     `json:"t"`
	Axes      map[string]float64         `json:"axes"`
	Held      map[string]bool            `json:"held"`
	LatencyMS *float64                   `json:"latency_ms"`
	JitterMS  *float64                   `json:"jitter_ms"`
	LossPct   *float64                   `json:"loss_pct"`
	Text      *string                    `json:"text"`
	Name      *string                    `json:"name"`
	Fields    map[string]json.RawMessage `json:"fields"`
	ID        *float64                   `json:"id"`
	Player    *float64                   `json:"player"`
}

// checkDecodeMatchesJSON fails t when decodeMessage and json.Unmarshal
// disagree about b: whether it decodes, and into what.
func checkDecodeMatchesJSON(t *testing.T, b []byte) {
	t.Helper()
	var want jsonMessage
	werr := json.Unmarshal(b, &want)
	var got rawMessage
	ok := decodeMessage(b, &got)
	if ok != (werr == nil) {
		t.Fatalf("%q: decoded %v, encoding/json says %v", b, ok, werr)
	}
	if !ok {
		return
	}
	conv := jsonMessage{T: got.T, Axes: got.Axes, Held: got.Held, LatencyMS: got.LatencyMS, JitterMS: got.JitterMS, LossPct: got.LossPct,
		Text: got.Text, Name: got.Name, ID: got.ID, Player: got.Player}
	if got.Fields != nil {
		conv.Fields = map[string]json.RawMessage{}
		for k, v := range got.Fields {
			conv.Fields[k] = json.RawMessage(v)
		}
	}
	if !reflect.DeepEqual(conv, want) {
		t.Fatalf("%q:\ndecoded      %+v\nencoding/json %+v", b, conv, want)
	}
}

var pageJSONSeeds = []string{
	`{"t":"input","axes":{"run":1,"aim_x":0.6,"aim_y":-0.8},"held":{"jump":true,"fire":false}}`,
	`{"t":"input","axes":{"run":-9e307,"fly":1},"held":{"dance":true},"player":1}`,
	`{"t":"input","axes":{"run":NaN}}`,
	`{"t":"input","axes":{"run":1e999}}`,
	`{"t":"input","axes":null,"held":null}`,
	`{"t":"input","axes":{"a":null},"held":{"b":null}}`,
	`{"t":"input","axes":{"a":1},"axes":{"b":2},"AXES":{"a":3}}`,
	`{"t":"link","latency_ms":80,"jitter_ms":10,"loss_pct":2}`,
	`{"t":"link","latency_ms":-1,"jitter_ms":1e308,"loss_pct":100}`,
	`{"T":"link","Latency_MS":5,"jitter_ms":null}`,
	`{"t":"chat","text":"gg wp"}`,
	`{"t":"chat","text":"\u0000\ud800 é \ud83d\ude00 \ud83d\u0041 \/\b\f\n\r\t\\\""}`,
	"{\"t\":\"chat\",\"text\":\"a\xffb\xc3\"}",
	"{\"t\":\"chat\",\"text\":\"\\n\xff\xfeb\"}",
	"{\"t\":\"chat\",\"text\":\"a\x01\"}",
	`{"t":"chat","text":7}`,
	`{"t":"chat","text":null}`,
	`{"t":"send","name":"buy","fields":{"item":3,"now":true,"x":null,"y":"s","z":[1,{"a":[]}],"w":-0.5e-3}}`,
	`{"t":"send","name":"buy","fields":{"a":1},"fields":{"b":2}}`,
	`{"t":"send","name":"","fields":{}}`,
	`{"t":"send","name":"buy","fields":{"item":"3"}}`,
	`{"t":"send","name":"buy","fields":{"item":1e999}}`,
	`{"t":"inspect","id":12}`,
	`{"t":"nope","other":{"deep":[true,false,null,"x",-1.5E+3]}}`,
	`{"t":5}`, `{"t":true}`, `{"t":null}`, `{"axes":[1]}`, `{"held":{"a":1}}`, `{"id":"1"}`,
	`{"t":"input",}`, `{"t":"input"`, `{"t" "x"}`, `{"t":01}`, `{"t":-}`, `{"t":1.}`, `{"t":.5}`, `{"id":1e}`,
	`{"axſs":{"a":1}}`, `{"ſ":1}`, "{\"\u212aey\":1}",
	`[]`, `null`, `nul`, `"input"`, `{`, "\xff\xfe", ``, ` `, ` {} `, `{} {}`, `1`, `true`,
	`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`{"a":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}`,
}

func TestDecodeMessageMatchesJSON(t *testing.T) {
	for _, s := range pageJSONSeeds {
		checkDecodeMatchesJSON(t, []byte(s))
	}
}

// FuzzDecodeMessageMatchesJSON: the page's messages decode as
// encoding/json decodes them.
func FuzzDecodeMessageMatchesJSON(f *testing.F) {
	for _, s := range pageJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeMatchesJSON(t, b)
	})
}
