package pins

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Flag is one place where a definition reads as orders to the AI model
// rather than as documentation.
type Flag struct {
	// Rule names the rule (Rules) that found it; What says it in words.
	Rule string `json:"rule"`
	What string `json:"what"`
	// Where is the text it is in: "description", "title", "`city`'s
	// description".
	Where string `json:"where"`
	// Quote is the line that holds it, cut to a readable length.
	Quote string `json:"quote"`
}

// Rule is one thing Scan looks for.
type Rule struct {
	ID   string
	What string
	// Pattern finds it in a text; nil for the rules Scan applies in code
	// (other servers' tool names, hidden characters, look-alike letters,
	// length).
	Pattern *regexp.Regexp
	// Needs are words the lower-cased text must hold, one of each group,
	// for Pattern to be tried: most documentation holds none, and a
	// look for a word costs a hundredth of a regular expression.
	Needs [][]string
}

// The rules Scan applies in code.
const (
	RuleShadowing  = "shadowing"
	RuleHidden     = "hidden-characters"
	RuleConfusable = "look-alike-letters"
	RuleLong       = "very-long"
)

// LongDescription is how many characters of a description are flagged as
// very long: the reference servers' longest is about half.
const LongDescription = 1500

// Rules are every rule Scan applies, in one table; each has a test that
// finds it and a text like documentation that it must not find.
var Rules = []Rule{
	{ID: "tag", What: "a tag that speaks to the AI, such as <IMPORTANT>",
		Needs:   [][]string{{"<"}},
		Pattern: regexp.MustCompile(`(?i)<\s*/?\s*(important|system|instructions?|secret|hidden|admin|critical|assistant|prompt)\b[^>]{0,40}>`)},
	{ID: "ignore-previous", What: "tells the AI to ignore what it was told before",
		Needs:   [][]string{{"ignore", "disregard", "forget", "override", "skip", "discard", "set aside", "abandon", "neglect"}},
		Pattern: regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override|skip|discard|set\s+aside|abandon|neglect)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+|what\s+)?(previous|prior|above|earlier|preceding|other|system|original|former|initial)\s+(instructions?|prompts?|rules?|messages?|directions?|guidelines?|guidance|orders?|commands?|context|you\s+were\s+told)`)},
	{ID: "new-orders", What: "gives the AI new orders in place of the ones it has",
		Needs: [][]string{{"from now on", "henceforth", "instruction", "your ", "no longer", "pay no", "follow", "obey", "you are now", "act as", "pretend"}},
		Pattern: regexp.MustCompile(`(?i)\b(from\s+now\s+on|henceforth),?\s+(you|always|never|do|respond|answer|reply|call|use)\b` +
			`|\b(new|updated|real|true|actual|secret|hidden)\s+(system\s+)?instructions?\s*(:|are|follow|for\s+(you|the\s+(ai|assistant|model)))` +
			`|\byour\s+(real|true|new|actual|only)\s+(task|goal|job|purpose|instructions?|objective|mission)\b` +
			`|\b(previous|prior|earlier|above|original|former|system)\s+(instructions?|directions?|guidance|rules?|prompts?|orders?)\s+(no\s+longer\s+apply|(are|is)\s+(now\s+)?(void|obsolete|cancell?ed|outdated|superseded|revoked|invalid|wrong))` +
			`|\bpay\s+no\s+(attention|heed|mind)\s+to\b` +
			`|\b(do\s+not|don'?t|never|stop)\s+(follow|obey|heed|comply\s+with)(ing)?\s+(the\s+|your\s+|any\s+)?(previous|prior|earlier|system|original|other|user'?s?|developer'?s?)\b` +
			`|\byou\s+are\s+now\s+(an?\s+|in\s+|no\s+longer\b)` +
			`|\b(act|behave)\s+as\s+(if|though)\s+you\b|\bpretend\s+(to\s+be|that\s+you)\b`)},
	{ID: "conceal", What: "tells the AI to keep something from the person",
		Needs:   [][]string{{"user", "person", "human"}},
		Pattern: regexp.MustCompile(`(?i)\b(do\s+not|don'?t|never|must\s+not)\s+(tell|inform|mention|reveal|show|notify|alert|disclose)\b[^.\n]{0,40}\b(user|person|human)\b|\bwithout\s+(telling|informing|notifying|alerting|asking)\s+(the\s+)?(user|person|human)\b|\b(user|person|human)\s+(must|should)\s+(not|never)\s+(know|see|find\s+out|be\s+told)\b`)},
	{ID: "before-other-tools", What: "tells the AI what to do before other tools or answers",
		Needs:   [][]string{{"before", "first", "instead"}},
		Pattern: regexp.MustCompile(`(?i)\bbefore\s+(using|calling|invoking|running|any)\s+(any|every|all|each|other|answer|response|reply|tool)\b|\b(always|first)\s+(call|use|run|invoke)\s+this\s+tool\s+(first|before)\b|\binstead\s+of\s+(using\s+|calling\s+)?(the\s+)?(other|any\s+other)\s+tools?\b`)},
	{ID: "read-secret-file", What: "points the AI at a file that holds keys or passwords",
		Needs:   [][]string{{"~", "$home", "%userprofile%", "id_", "/etc/", ".netrc", ".npmrc", ".pgpass", ".git-credentials", "mcp.json", "claude_desktop_config", ".env"}},
		Pattern: regexp.MustCompile(`(?i)(~|\$HOME|%USERPROFILE%)[/\\]\.(ssh|aws|gnupg|kube|docker|config/gh)\b|\bid_(rsa|dsa|ecdsa|ed25519)\b|/etc/(passwd|shadow)\b|\.(netrc|npmrc|pgpass|git-credentials)\b|\bmcp\.json\b|claude_desktop_config\.json|\b(read|open|cat|load)\s+(the\s+)?[^.\n]{0,20}\.env\b`)},
	{ID: "send-data", What: "tells the AI to send data somewhere",
		Needs:   [][]string{{"send", "post", "upload", "forward", "transmit", "exfiltrate", "leak", "copy"}, {"to ", "at "}},
		Pattern: regexp.MustCompile(`(?i)\b(send|post|upload|forward|transmit|exfiltrate|leak|copy)\b[^.\n]{0,80}\b(to|at)\s+(https?://|[a-z0-9-]+\.(com|net|org|io|xyz|ru|cn|tk|top)\b|(this|that|the|a|our)\s+(url|endpoint|webhook|server|address))`)},
	{ID: "secret-argument", What: "tells the AI to put secrets or file contents into an argument",
		Needs:   [][]string{{"pass", "put", "include", "add", "provide", "insert", "send", "place"}, {"argument", "param", "field", "input", " as "}},
		Pattern: regexp.MustCompile(`(?i)\b(pass|put|include|add|provide|insert|send|place)\b[^.\n]{0,50}\b(api[ _-]?keys?|tokens?|passwords?|secrets?|credentials?|private\s+keys?|ssh\s+keys?|cookies?|conversation|chat\s+history|system\s+prompt)\b[^.\n]{0,40}\b(as|in|into|inside)\b[^.\n]{0,30}\b(argument|parameter|param|field|input)s?\b|\bpass\s+(its|the|their|that\s+file'?s?)\s+(text|contents?|value|output)\s+(as|in|into)\b`)},
	{ID: RuleShadowing, What: "names another server's tool, which can steer how the AI uses it"},
	{ID: RuleHidden, What: "holds invisible or direction-changing characters"},
	{ID: RuleConfusable, What: "spells words with letters of another alphabet that look like Latin ones"},
	{ID: RuleLong, What: fmt.Sprintf("has a very long description (over %d characters)", LongDescription)},
}

// Scan reads every text of d that a model reads for what it would take
// as orders: its title, description and annotations' title, every string
// in its schemas (descriptions, titles, defaults, enums, examples,
// consts, comments) and its fields' names, and the text that invisible
// characters spelled. It applies Rules' patterns to each as written and
// as a model reads it (look-alike letters of other alphabets read as the
// Latin ones they look like: the Unicode confusables of UTS #39), finds
// other servers' tool names (others reports whether a name is one; nil
// means none), hidden characters and words that mix alphabets, and says
// where each is. A prompt's Def is read the same way: its arguments stand
// for its schema.
func Scan(d Def, others func(name string) bool) []Flag {
	flags, _ := read(d, others, false)
	return flags
}

// Read is Scan, and also the words of d's texts that could name another
// server's tool (get_weather, readFile), its own name left out: its
// shadowing flags can change only when a tool by one of those names comes
// or goes.
func Read(d Def, others func(name string) bool) (flags []Flag, mentions []string) {
	return read(d, others, true)
}

// text is one text of a definition and where it is.
type text struct{ where, text string }

func read(d Def, others func(name string) bool, withMentions bool) ([]Flag, []string) {
	var out []Flag
	var mentions []string
	texts := []text{{"title", d.Title}, {"description", d.Description}}
	if d.Annotations.Title != "" {
		texts = append(texts, text{"annotations' title", d.Annotations.Title})
	}
	if d.HiddenWords != "" {
		texts = append(texts, text{"text spelled in invisible characters", d.HiddenWords})
	}
	texts = append(texts, schemaTexts(d.InputSchema, "")...)
	texts = append(texts, schemaTexts(d.OutputSchema, "returned ")...)
	add := func(id, where, q string) {
		for _, f := range out {
			if f.Rule == id && f.Where == where {
				return // one flag of a rule for each place
			}
		}
		out = append(out, Flag{Rule: id, What: rule(id).What, Where: where, Quote: q})
	}
	for _, t := range texts {
		if withMentions {
			toolWords(t.text, func(n string, _, _ int) bool {
				if n != d.Name && !slices.Contains(mentions, n) {
					mentions = append(mentions, n)
				}
				return false
			})
		}
		if t.text == "" {
			continue
		}
		scanRules(t.text, func(id string, loc []int) { add(id, t.where, quote(t.text, loc)) })
		if loc := shadowed(t.text, d.Name, others); loc != nil {
			add(RuleShadowing, t.where, quote(t.text, loc))
		}
		if i := sanitize.Index(t.text); i >= 0 {
			_, n := utf8.DecodeRuneInString(t.text[i:])
			q := fmt.Sprintf("%s in %q", foundWords(sanitize.Find(t.text)), quote(t.text, []int{i, i + n}))
			if spelled := sanitize.Smuggled(t.text); spelled != "" {
				q = fmt.Sprintf("they spell %q", firstLine(spelled))
				scanRules(spelled, func(id string, loc []int) { add(id, t.where+", in invisible characters", quote(spelled, loc)) })
			}
			add(RuleHidden, t.where, q)
		}
		if !isASCII(t.text) {
			if loc := mixedWord(t.text); loc != nil {
				add(RuleConfusable, t.where, quote(t.text, loc))
			}
			if folded := foldConfusables(t.text); folded != t.text {
				scanRules(folded, func(id string, loc []int) { add(id, t.where+", read as Latin letters", quote(folded, loc)) })
			}
		}
	}
	if d.HiddenText {
		// Where they were, field by field, when the definition says so.
		var fields []string
		byField := map[string][]sanitize.Found{}
		for _, h := range d.Hidden {
			if _, ok := byField[h.Field]; !ok {
				fields = append(fields, h.Field)
			}
			byField[h.Field] = append(byField[h.Field], h.Found)
		}
		for _, f := range fields {
			add(RuleHidden, f, foundWords(byField[f])+", removed before the AI or you saw it")
		}
		if len(fields) == 0 {
			q := "removed before the AI or you saw it: " + firstLine(d.Description)
			if d.HiddenWords != "" {
				q = fmt.Sprintf("removed before the AI or you saw it; they spelled %q", firstLine(d.HiddenWords))
			}
			add(RuleHidden, "name, title or description", q)
		}
	}
	if utf8.RuneCountInString(d.Description) > LongDescription {
		add(RuleLong, "description", fmt.Sprintf("%d characters", utf8.RuneCountInString(d.Description)))
	}
	return out, mentions
}

// scanRules calls found with each of Rules' patterns that finds something
// in s, and where.
func scanRules(s string, found func(id string, loc []int)) {
	lower := strings.ToLower(s)
	for _, r := range Rules {
		if r.Pattern == nil || !holds(lower, r.Needs) {
			continue
		}
		if loc := r.Pattern.FindStringIndex(s); loc != nil {
			found(r.ID, loc)
		}
	}
}

// holds reports whether text holds a word of each group.
func holds(text string, groups [][]string) bool {
	for _, g := range groups {
		if !slices.ContainsFunc(g, func(w string) bool { return strings.Contains(text, w) }) {
			return false
		}
	}
	return true
}

func rule(id string) Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	return Rule{ID: id}
}

// schemaTexts are the strings anywhere in a schema a model reads, each
// with where it is ("`city`'s description", "`unit`'s enum"), and its
// fields' names, written as words ("the field name `ignore_previous`").
// The schema's own words (type, format, $ref…) are left out.
func schemaTexts(raw json.RawMessage, prefix string) []text {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []text
	where := func(field, key string) string {
		if field == "" {
			return prefix + "schema's " + key
		}
		return fmt.Sprintf("%s`%s`'s %s", prefix, field, key)
	}
	var walk func(v any, field, key string)
	walk = func(v any, field, key string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch k {
				case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
					if props, ok := x.(map[string]any); ok {
						for name, p := range props {
							out = append(out, text{prefix + "the field name `" + name + "`", nameWords(name)})
							walk(p, name, "")
						}
						continue
					}
				case "type", "format", "$ref", "$schema", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "required", "contentEncoding", "contentMediaType":
					if _, ok := x.(string); ok {
						continue
					}
					if _, ok := x.([]any); ok && k != "required" {
						continue
					}
				}
				walk(x, field, k)
			}
		case []any:
			for _, x := range v {
				walk(x, field, key)
			}
		case string:
			if key == "" {
				key = "text"
			}
			if key == "required" {
				key = "required field"
			}
			out = append(out, text{where(field, key), v})
		}
	}
	if args, ok := v.([]any); ok { // a prompt's arguments
		for _, a := range args {
			m, _ := a.(map[string]any)
			name, _ := m["name"].(string)
			if name == "" {
				walk(a, "", "")
				continue
			}
			out = append(out, text{prefix + "the argument name `" + name + "`", nameWords(name)})
			for k, x := range m {
				if k != "name" {
					walk(x, name, k)
				}
			}
		}
		return dedupe(out)
	}
	walk(v, "", "")
	return dedupe(out)
}

// nameWords is a field's name as words: get_user-name and getUserName are
// "get user name", so that a name can be read like a sentence.
func nameWords(name string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.':
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

func dedupe(in []text) []text {
	seen := make(map[text]bool, len(in))
	out := in[:0]
	for _, t := range in {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// shadowed finds in text the first name of another server's tool that is
// distinctive enough to mean a tool (get_weather, create-issue,
// mcp__github__search, readFile) rather than a plain word (search,
// fetch), leaving out the tool's own name.
func shadowed(text, own string, others func(string) bool) []int {
	if others == nil {
		return nil
	}
	var loc []int
	toolWords(text, func(n string, start, end int) bool {
		if n != own && others(n) {
			loc = []int{start, end}
			return true
		}
		return false
	})
	return loc
}

// toolWords calls f with each word of text distinctive enough to be a tool's
// name, and where it is, until f returns true.
func toolWords(text string, f func(n string, start, end int) bool) {
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && nameByte(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= 4 {
			if n := text[start:i]; distinctive(n) && f(n, start, i) {
				return
			}
		}
		start = -1
	}
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

func distinctive(n string) bool {
	if strings.ContainsAny(n, "_-") {
		return true
	}
	for i, r := range n {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// foundWords says hidden characters found in a text, the first three by
// their code points and names, each with its line and column, as in a
// text of one line as well: "U+202E RIGHT-TO-LEFT OVERRIDE at line 2,
// column 5; U+200B ZERO WIDTH SPACE (2 times) at line 3, column 1 and 2
// more".
func foundWords(found []sanitize.Found) string {
	var out []string
	for i, f := range found {
		if i == 3 {
			return strings.Join(out, "; ") + fmt.Sprintf(" and %d more", len(found)-i)
		}
		out = append(out, fmt.Sprintf("%s at line %d, column %d", f.Words(), f.Line, f.Column))
	}
	return strings.Join(out, "; ")
}

// quote is the line of text around loc, cut to about 160 characters.
func quote(text string, loc []int) string {
	start := strings.LastIndexAny(text[:loc[0]], "\n") + 1
	end := len(text)
	if i := strings.IndexAny(text[loc[1]:], "\n"); i >= 0 {
		end = loc[1] + i
	}
	line := text[start:end]
	const most = 160
	if utf8.RuneCountInString(line) <= most {
		return strings.TrimSpace(line)
	}
	// Keep the match in view.
	from := max(0, loc[0]-start-60)
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	r := []rune(line[from:])
	cut := string(r[:min(len(r), most)])
	prefix, suffix := "", ""
	if from > 0 {
		prefix = "…"
	}
	if len(r) > most {
		suffix = "…"
	}
	return prefix + strings.TrimSpace(cut) + suffix
}

// firstLine is text's first line, cut to a readable length.
func firstLine(text string) string {
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return quote(text, []int{0, 0})
}
