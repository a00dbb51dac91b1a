// Package bundle opens MCP Bundles (.mcpb files, formerly .dxt): a zip
// that holds a server's code and a manifest.json saying what it is, how
// it runs, which settings it asks for and which tools and prompts it
// offers. It checks a bundle before anything of it runs, and says in
// words what is wrong:
//
//   - the zip itself (archive.go): no entry may climb out of the folder it
//     unpacks into, name an absolute path, be a link or a device, share
//     its name with another (letter case and Unicode forms aside, as
//     macOS and Windows see names), overlap another's bytes, or expand
//     past the Limits;
//   - the manifest (manifest.go, schema.go), against the bundle format's
//     published JSON schema for its manifest version (0.2 to 0.4; the
//     schemas are copies of those in the @anthropic-ai/mcpb package, in
//     schemas/ with their licence);
//   - its signature (signature.go), the PKCS#7 block that mcpb sign
//     appends: signed by whom, self-signed or not, and a bundle whose
//     bytes changed after it was signed is refused;
//   - what it needs of this computer (requirements.go): its platforms,
//     and the runtimes it runs with and their versions.
//
// Unpack writes its files into a folder of mcptray's, read-only, and
// Command (command.go) turns its mcp_config and the person's settings
// into the exact command, arguments and environment, as the format's
// variable substitution says.
//
// This package must never run anything from a bundle, nor read a file
// outside the bundle and the folder it unpacks into; the secrets a
// bundle asks for are never in a Command, only references to where they
// are kept.
package bundle
