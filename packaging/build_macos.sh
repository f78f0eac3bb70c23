#!/usr/bin/env bash
# Build dist/Triage.app (arm64, onedir, windowed) and dist/Triage-<version>-arm64.dmg on a Mac.
#
# Optional, from the environment (CI secrets); each step is skipped with a message when absent:
#   MACOS_SIGN_IDENTITY   "Developer ID Application: Name (TEAMID)" in the current keychain
#   NOTARY_APPLE_ID, NOTARY_PASSWORD (app-specific), NOTARY_TEAM_ID   for notarytool
# Without a signing identity the app keeps PyInstaller's ad-hoc signature: it runs on this Mac;
# downloaded elsewhere, Gatekeeper asks the user to confirm once (docs/packaging.md).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
APP=dist/Triage.app
VERSION=$("$PY" -c "import sys; sys.path.insert(0, 'packaging'); import triage_common; print(triage_common.VERSION)")
DMG=dist/Triage-$VERSION-arm64.dmg

[ "$(uname -s)" = Darwin ] || { echo "build_macos.sh: needs macOS (on Linux: packaging/build_linux.sh)"; exit 2; }
[ "$(uname -m)" = arm64 ] || { echo "build_macos.sh: the spec targets arm64; run on Apple silicon"; exit 2; }

start=$(date +%s)
"$PY" -m PyInstaller --noconfirm --distpath dist --workpath build packaging/triage.spec
echo "built $APP in $(( $(date +%s) - start )) s: $(du -sh "$APP" | cut -f1)"

if [ -n "${MACOS_SIGN_IDENTITY:-}" ]; then
  # inside out is what Apple asks for; --deep on the bundle signs every nested binary the same way
  codesign --force --deep --timestamp --options runtime --entitlements packaging/entitlements.plist \
    --sign "$MACOS_SIGN_IDENTITY" "$APP"
  codesign --verify --deep --strict --verbose=2 "$APP"
else
  echo "signing skipped: MACOS_SIGN_IDENTITY is not set (the app keeps its ad-hoc signature)"
fi

# the DMG: the app and a link to /Applications, so installing is one drag
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
cp -R "$APP" "$staging/"
ln -s /Applications "$staging/Applications"
rm -f "$DMG"
hdiutil create -volname "Triage" -srcfolder "$staging" -fs HFS+ -format UDZO -ov "$DMG"
echo "built $DMG: $(du -h "$DMG" | cut -f1)"

if [ -n "${MACOS_SIGN_IDENTITY:-}" ]; then
  codesign --force --timestamp --sign "$MACOS_SIGN_IDENTITY" "$DMG"
fi
if [ -n "${MACOS_SIGN_IDENTITY:-}" ] && [ -n "${NOTARY_APPLE_ID:-}" ] && [ -n "${NOTARY_PASSWORD:-}" ] \
   && [ -n "${NOTARY_TEAM_ID:-}" ]; then
  xcrun notarytool submit "$DMG" --apple-id "$NOTARY_APPLE_ID" --password "$NOTARY_PASSWORD" \
    --team-id "$NOTARY_TEAM_ID" --wait
  xcrun stapler staple "$DMG"
else
  echo "notarization skipped: needs MACOS_SIGN_IDENTITY, NOTARY_APPLE_ID, NOTARY_PASSWORD and NOTARY_TEAM_ID"
fi
