// Package sets is what each AI app gets of mcptray's servers: named sets
// of servers and single tools, which app gets which set, and what an app
// mcptray does not know gets.
//
// A set ("Work", "Home", "Writing") holds chosen servers whole and,
// optionally, single tools of other servers (SERVER/TOOL). A set that holds
// "new servers too" also holds every server set up after the set was last
// made or changed: the servers there were then are kept with it (Known),
// and any other is new. A set may give its own permission (Allow, Ask,
// Block) to a tool and hide tools or servers; what it leaves unsaid falls
// back to the gateway's own rules, the same for every app.
//
// An app gets everything (the default), a set, or the tray's set: the one
// the tray's menu chose, which the apps following it get at once when it
// changes. An app mcptray does not know for sure (one that only says who
// it is in its clientInfo, which any program can claim) gets the default
// for unknown apps: everything, or nothing until the person chooses.
//
// The choices are kept in sets.json in mcptray's own config folder, replaced
// whole at each change (config.WriteFileAtomic), so a reader or a crash
// sees the old file or the new one, never half of either. Bad input is
// refused in plain words before anything is written. The file edited by
// hand while mcptray runs is read again at once (Keeper.Watch); one that
// cannot be read is refused in words, and the last good choices stay.
package sets
