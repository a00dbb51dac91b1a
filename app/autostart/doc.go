// Package autostart turns "start mcptray when I log in" on and off for the
// person at the keyboard, and says whether it is on.
//
// Enable, Disable and Status go through one Switch; only where the entry
// lives differs by system:
//
//   - Linux and the BSDs: an XDG autostart entry,
//     $XDG_CONFIG_HOME/autostart/dev.mcptray.mcptray.desktop (~/.config by
//     default). An entry that the desktop's own settings switched off
//     (Hidden=true, X-GNOME-Autostart-enabled=false) counts as off.
//   - macOS: a LaunchAgent, ~/Library/LaunchAgents/dev.mcptray.mcptray.plist,
//     which launchd reads at the next login.
//   - Windows: the value "mcptray" under
//     HKCU\Software\Microsoft\Windows\CurrentVersion\Run.
//
// Every entry starts the program with Arg, which tells mcptray that it was
// started at login: it goes to the tray without opening its window.
//
// It touches only per-user files (or the per-user registry hive), so the
// window and the command line call it directly; tests give it a temporary
// home through config.Paths. It imports no GUI package.
package autostart
