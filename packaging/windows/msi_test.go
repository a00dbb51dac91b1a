// Package windows holds mcptray's Windows installer (mcptray.wxs, which
// make package-windows turns into an .msi with msitools' wixl); its test
// makes the .msi and reads it back with msiinfo.
package windows

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/autostart"
)

// msiRows is one table of an .msi as msiinfo exports it: a row a line,
// its columns split at tabs, the three header lines dropped.
func msiRows(t *testing.T, msi, table string) [][]string {
	t.Helper()
	out, err := exec.Command("msiinfo", "export", msi, table).Output()
	if err != nil {
		t.Fatalf("msiinfo export %s: %v", table, err)
	}
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("msiinfo export %s: no header in %q", table, out)
	}
	var rows [][]string
	for _, l := range lines[3:] {
		rows = append(rows, strings.Split(l, "\t"))
	}
	return rows
}

// makeMSI makes the .msi from mcptray.wxs as scripts/package.sh does,
// with a stand-in for the program, and returns its path.
func makeMSI(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"wixl", "msiinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is missing (msitools; scripts/deps.sh installs it)", tool)
		}
	}
	dir := t.TempDir()
	wxs, err := os.ReadFile("mcptray.wxs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcptray.wxs"), wxs, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcptray.exe"), []byte("MZ stand-in"), 0o755); err != nil {
		t.Fatal(err)
	}
	msi := filepath.Join(dir, "mcptray.msi")
	cmd := exec.Command("wixl", "-D", "Version=1.2.3", "-D", "Exe=mcptray.exe", "-o", msi, "mcptray.wxs")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wixl: %v\n%s", err, out)
	}
	return msi
}

// hkcu is the Registry table's Root for HKEY_CURRENT_USER.
const hkcu = "1"

func TestMSI(t *testing.T) {
	msi := makeMSI(t)
	const exe = `[INSTALLDIR]mcptray.exe`

	props := map[string]string{}
	for _, r := range msiRows(t, msi, "Property") {
		props[r[0]] = r[1]
	}
	// For the person alone, with no administrator: ALLUSERS=2 with
	// MSIINSTALLPERUSER=1 is Windows' per-user install.
	if props["ALLUSERS"] != "2" || props["MSIINSTALLPERUSER"] != "1" {
		t.Errorf("not a per-user install: ALLUSERS=%q MSIINSTALLPERUSER=%q", props["ALLUSERS"], props["MSIINSTALLPERUSER"])
	}
	if props["ProductVersion"] != "1.2.3" || props["UpgradeCode"] == "" {
		t.Errorf("version %q, upgrade code %q: a new version would not replace the old", props["ProductVersion"], props["UpgradeCode"])
	}

	// The program, in %LOCALAPPDATA%\Programs\mcptray.
	dirs := map[string][2]string{} // id: parent, name
	for _, r := range msiRows(t, msi, "Directory") {
		dirs[r[0]] = [2]string{r[1], r[2]}
	}
	if d, p := dirs["INSTALLDIR"], dirs[dirs["INSTALLDIR"][0]]; d[1] != "mcptray" || p[1] != "Programs" || p[0] != "LocalAppDataFolder" {
		t.Errorf("INSTALLDIR is %v under %v, not LocalAppDataFolder\\Programs\\mcptray", d, p)
	}
	files := msiRows(t, msi, "File")
	if len(files) != 1 || files[0][2] != "mcptray.exe" {
		t.Errorf("the files are %v, not mcptray.exe alone", files)
	}

	// A Start menu entry that starts it.
	var menu bool
	for _, r := range msiRows(t, msi, "Shortcut") {
		menu = menu || r[1] == "ProgramMenuFolder" && r[4] == exe && r[5] == ""
	}
	if !menu {
		t.Errorf("no Start menu entry runs %s: %v", exe, msiRows(t, msi, "Shortcut"))
	}

	reg := map[string]string{} // key\name: value, all HKCU
	regComp := map[string]string{}
	for _, r := range msiRows(t, msi, "Registry") {
		if r[1] != hkcu {
			t.Errorf("a registry value outside HKEY_CURRENT_USER: %v", r)
		}
		reg[r[2]+`\`+r[3]] = r[4]
		regComp[r[2]+`\`+r[3]] = r[5]
	}
	// Start at login: the very value the window's check box writes and
	// reads (app/autostart), so the box shows it on, and turning it off
	// there takes it away.
	run := `Software\Microsoft\Windows\CurrentVersion\Run\mcptray`
	if reg[run] != autostart.RunCommand(exe) {
		t.Errorf("the Run value is %q, not %q as the check box writes it", reg[run], autostart.RunCommand(exe))
	}
	// in a feature of its own, which the person may leave out.
	for _, r := range msiRows(t, msi, "FeatureComponents") {
		if r[1] == regComp[run] && r[0] == "Main" {
			t.Errorf("start at login is part of the main feature, so it cannot be left out")
		}
	}

	// .mcpb (and .dxt, its former name) open mcptray's install dialog:
	// mcptray FILE, which main takes as a bundle to install.
	for _, ext := range []string{".mcpb", ".dxt"} {
		prog := reg[`Software\Classes\`+ext+`\`]
		if prog == "" {
			t.Errorf("%s is not mcptray's", ext)
			continue
		}
		if cmd := reg[`Software\Classes\`+prog+`\shell\open\command\`]; cmd != `"`+exe+`" "%1"` {
			t.Errorf("opening %s runs %q, not mcptray with the file alone", ext, cmd)
		}
	}

	// A clean uninstall: everything it writes belongs to a component,
	// which Windows takes away at uninstall; its folder goes too; and it
	// runs nothing of its own that an uninstall would not undo.
	comps := map[string]bool{}
	for _, r := range msiRows(t, msi, "Component") {
		comps[r[0]] = true
	}
	for k, c := range regComp {
		if !comps[c] {
			t.Errorf("the registry value %s belongs to no component", k)
		}
	}
	if !slices.ContainsFunc(msiRows(t, msi, "RemoveFile"), func(r []string) bool {
		return r[3] == "INSTALLDIR" && r[2] == "" && (r[4] == "2" || r[4] == "3")
	}) {
		t.Errorf("the program's folder is left behind at uninstall: %v", msiRows(t, msi, "RemoveFile"))
	}
	if ca := msiRows(t, msi, "CustomAction"); len(ca) != 0 {
		t.Errorf("it runs actions of its own: %v", ca)
	}
}
