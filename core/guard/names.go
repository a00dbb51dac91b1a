package guard

import (
	"strings"
	"unicode"
)

// What a tool's name says it does. A name only adds a label, so these
// lean towards saying yes; they are kept to words that mean one thing, so
// that reading files, searching them and keeping notes add none.
var (
	// untrustedWords bring in what others wrote, wherever they stand in
	// the name: fetch_url, browser_navigate, web_search, scrape_page.
	untrustedWords = map[string]bool{
		"fetch": true, "browse": true, "browser": true, "navigate": true, "scrape": true, "crawl": true,
		"download": true, "web": true, "webpage": true, "url": true, "http": true, "https": true,
		"internet": true, "online": true, "rss": true, "feed": true, "issue": true, "issues": true,
		"inbox": true,
	}
	// searchAlone: search is the web's only when the name says nothing
	// else is searched ("search", "search_query"); search_files and
	// search_nodes search what the server holds.
	searchAlone = map[string]bool{"search": true, "query": true, "q": true}
	// egressVerbs send data out when they begin the name: send_message,
	// post_comment, push_files, create_issue is not one (it stays in the
	// account), upload_file.
	egressVerbs = map[string]bool{
		"send": true, "post": true, "push": true, "publish": true, "upload": true, "share": true,
		"reply": true, "tweet": true, "email": true, "mail": true, "notify": true, "webhook": true,
		"submit": true, "forward": true,
	}
	// privateWords name the person's own data, for a tool that reads
	// (whose name does not begin with a verb that sends).
	privateWords = map[string]bool{
		"mail": true, "email": true, "emails": true, "inbox": true, "calendar": true, "events": true,
		"contacts": true, "contact": true, "messages": true, "dm": true, "dms": true, "drive": true,
		"documents": true, "photos": true, "password": true, "passwords": true, "secrets": true,
		"notes": true, "history": true, "bookmarks": true,
	}
)

// words splits a tool's name into lower-case words at _, -, ., / and
// spaces and where a lower-case letter meets an upper-case one
// (fetchUrl is fetch url).
func words(name string) []string {
	var out []string
	var b strings.Builder
	var prev rune
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ' ' || r == ':':
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	flush()
	return out
}

// nameSays are the labels a tool's name gives it, with the word that
// gives each.
func nameSays(name string) (untrusted, egress, private string) {
	ws := words(name)
	if len(ws) == 0 {
		return "", "", ""
	}
	for _, w := range ws {
		if untrustedWords[w] && untrusted == "" {
			untrusted = w
		}
	}
	if untrusted == "" && ws[0] == "search" && (len(ws) == 1 || searchAlone[ws[1]]) {
		untrusted = "search"
	}
	if egressVerbs[ws[0]] {
		egress = ws[0]
		return untrusted, egress, ""
	}
	for _, w := range ws {
		if privateWords[w] {
			return untrusted, egress, w
		}
	}
	return untrusted, egress, ""
}
