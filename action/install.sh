#!/usr/bin/env bash
# Installs the cogworks binary for the CogWorks Action into $RUNNER_TEMP/cogworks:
# the release asset of the action's version, checksum verified, or (only when
# COGWORKS_BUILD_FROM_SOURCE=true) a build of the action's own source.
#
# Environment (set by action.yml):
#   COGWORKS_VERSION            input `version`: vX.Y.Z, vX (newest vX.*), latest, or empty
#   COGWORKS_ACTION_REF         github.action_ref (the tag, branch or SHA in `uses:`)
#   COGWORKS_ACTION_REPOSITORY  github.action_repository (owner/name of the action)
#   COGWORKS_ACTION_PATH        github.action_path (the action's source)
#   COGWORKS_BUILD_FROM_SOURCE  "true" to build from source instead of downloading
#   GH_TOKEN                    token for the releases API (rate limits)
#   GITHUB_SERVER_URL, GITHUB_API_URL, RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP
set -euo pipefail

dest="${RUNNER_TEMP:?}/cogworks-bin"
mkdir -p "$dest"
exe=cogworks
[ "${RUNNER_OS:-Linux}" = "Windows" ] && exe=cogworks.exe

if [ "${COGWORKS_BUILD_FROM_SOURCE:-false}" = "true" ]; then
  echo "Building CogWorks from source at ${COGWORKS_ACTION_PATH:?} (build-from-source: true)"
  (cd "$COGWORKS_ACTION_PATH" && CGO_ENABLED=0 go build -trimpath -o "$dest/$exe" ./cmd/cogworks)
  echo "$dest" >> "${GITHUB_PATH:-/dev/null}"
  echo "path=$dest/$exe" >> "${GITHUB_OUTPUT:-/dev/null}"
  exit 0
fi

repo="${COGWORKS_ACTION_REPOSITORY:-cogworks/cogworks}"
server="${GITHUB_SERVER_URL:-https://github.com}"
api="${GITHUB_API_URL:-https://api.github.com}"
want="${COGWORKS_VERSION:-}"
[ -z "$want" ] && want="${COGWORKS_ACTION_REF:-}"

# Resolve the release tag: an exact vX.Y.Z is used as is; a major tag (v1)
# or "latest" picks the newest non-prerelease release that matches.
api_get() {
  local auth=()
  [ -n "${GH_TOKEN:-}" ] && auth=(-H "Authorization: Bearer ${GH_TOKEN}")
  curl -fsSL --retry 3 ${auth[@]+"${auth[@]}"} -H "Accept: application/vnd.github+json" "$1"
}
if [[ "$want" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  tag="$want"
elif [[ "$want" =~ ^v[0-9]+$ || "$want" == "latest" ]]; then
  prefix="${want}."
  [ "$want" = "latest" ] && prefix="v"
  tag=$(api_get "$api/repos/$repo/releases?per_page=100" |
    jq -r --arg p "$prefix" '[.[] | select(.draft == false and .prerelease == false and (.tag_name | startswith($p)))][0].tag_name // empty')
  if [ -z "$tag" ]; then
    echo "::error title=CogWorks::no release of $repo matches '$want'; pin a released version (uses: $repo@vX.Y.Z) or set build-from-source: true" >&2
    exit 1
  fi
else
  echo "::error title=CogWorks::'$want' (from the uses: ref or the version input) is not a release tag; use a release (vX.Y.Z, vX or latest) or set build-from-source: true" >&2
  exit 1
fi

case "${RUNNER_OS:-Linux}" in
  Linux) os=linux ;; macOS) os=darwin ;; Windows) os=windows ;;
  *) echo "::error title=CogWorks::unsupported runner OS ${RUNNER_OS}" >&2; exit 1 ;;
esac
case "${RUNNER_ARCH:-X64}" in
  X64) arch=amd64 ;; ARM64) arch=arm64 ;;
  *) echo "::error title=CogWorks::unsupported runner architecture ${RUNNER_ARCH}" >&2; exit 1 ;;
esac
version="${tag#v}"
ext=tar.gz
[ "$os" = windows ] && ext=zip
# Asset names follow .goreleaser.yaml (archives.name_template, checksum.name_template).
asset="cogworks_${version}_${os}_${arch}.${ext}"
sums="cogworks_${version}_checksums.txt"
base="$server/$repo/releases/download/$tag"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "Downloading CogWorks $tag ($os/$arch) from $base"
curl -fsSL --retry 3 -o "$work/$asset" "$base/$asset"
curl -fsSL --retry 3 -o "$work/$sums" "$base/$sums"
expected=$(awk -v a="$asset" '$2 == a || $2 == "*"a {print $1}' "$work/$sums")
if [ -z "$expected" ]; then
  echo "::error title=CogWorks::$sums does not list $asset" >&2
  exit 1
fi
if command -v sha256sum >/dev/null 2>&1; then
  actual=$(sha256sum "$work/$asset" | awk '{print $1}')
else
  actual=$(shasum -a 256 "$work/$asset" | awk '{print $1}')
fi
if [ "$expected" != "$actual" ]; then
  echo "::error title=CogWorks::checksum mismatch for $asset: expected $expected, got $actual" >&2
  exit 1
fi
if [ "$ext" = zip ]; then
  unzip -q -o "$work/$asset" -d "$work/x"
else
  mkdir -p "$work/x" && tar -xzf "$work/$asset" -C "$work/x"
fi
install -m 0755 "$work/x/$exe" "$dest/$exe"
echo "Installed CogWorks $tag at $dest/$exe (sha256 $actual)"
echo "$dest" >> "${GITHUB_PATH:-/dev/null}"
echo "path=$dest/$exe" >> "${GITHUB_OUTPUT:-/dev/null}"
echo "version=$tag" >> "${GITHUB_OUTPUT:-/dev/null}"
