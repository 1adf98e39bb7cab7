#!/usr/bin/env bash
# Installs the cogworks binary for the CogWorks Action into $RUNNER_TEMP/cogworks:
# the release asset of the action's version, checksum verified, or a build of
# the action's own source: when COGWORKS_BUILD_FROM_SOURCE=true, and when the
# action is pinned to a full commit SHA (GitHub's hardening advice) that no
# release tag points at. A SHA that a release tag points at downloads that
# release.
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

# build_from_source builds the action's own source (why: the reason shown)
# with the Go toolchain its go.mod asks for (GOTOOLCHAIN=auto: setup-go may
# have installed the user's older Go) and exits.
build_from_source() {
  if ! command -v go >/dev/null 2>&1; then
    echo "::error title=CogWorks::building CogWorks from source ($1) needs Go on the runner: add actions/setup-go before this step, or pin the action to a release (uses: ${COGWORKS_ACTION_REPOSITORY:-cogworks/cogworks}@vX.Y.Z, or the full SHA a release tag points at)" >&2
    exit 1
  fi
  echo "Building CogWorks from source at ${COGWORKS_ACTION_PATH:?} ($1)"
  if ! (cd "$COGWORKS_ACTION_PATH" && CGO_ENABLED=0 GOTOOLCHAIN=auto go build -trimpath -o "$dest/$exe" ./cmd/cogworks); then
    echo "::error title=CogWorks::building CogWorks from source at $COGWORKS_ACTION_PATH failed (see the go output above); pin the action to a release (uses: ${COGWORKS_ACTION_REPOSITORY:-cogworks/cogworks}@vX.Y.Z) or to a commit that builds" >&2
    exit 1
  fi
  echo "$dest" >> "${GITHUB_PATH:-/dev/null}"
  echo "path=$dest/$exe" >> "${GITHUB_OUTPUT:-/dev/null}"
  exit 0
}

if [ "${COGWORKS_BUILD_FROM_SOURCE:-false}" = "true" ]; then
  build_from_source "build-from-source: true"
fi

repo="${COGWORKS_ACTION_REPOSITORY:-cogworks/cogworks}"
server="${GITHUB_SERVER_URL:-https://github.com}"
api="${GITHUB_API_URL:-https://api.github.com}"
want="${COGWORKS_VERSION:-}"
[ -z "$want" ] && want="${COGWORKS_ACTION_REF:-}"

# Resolve the release tag: an exact vX.Y.Z is used as is; a major tag (v1)
# or "latest" picks the newest non-prerelease release that matches; a full
# commit SHA picks the release tag that points at that commit, else builds
# that commit's source (the action's checkout is exactly that commit).
api_get() {
  local auth=()
  [ -n "${GH_TOKEN:-}" ] && auth=(-H "Authorization: Bearer ${GH_TOKEN}")
  curl -fsSL --retry 3 ${auth[@]+"${auth[@]}"} -H "Accept: application/vnd.github+json" "$1"
}
if [[ "$want" =~ ^[0-9a-fA-F]{40}$ ]]; then
  sha=$(printf '%s' "$want" | tr 'A-F' 'a-f')
  # The tags API names the commit each tag points at (annotated tags
  # peeled); the 100 newest tags are searched.
  if tags=$(api_get "$api/repos/$repo/tags?per_page=100"); then
    tag=$(printf '%s' "$tags" | jq -r --arg s "$sha" '[.[] | select(.commit.sha == $s and (.name | test("^v[0-9]+\\.[0-9]+\\.[0-9]+$")))][0].name // empty')
  else
    echo "::warning title=CogWorks::could not list the tags of $repo to find the release of commit $sha; building from source"
    tag=""
  fi
  if [ -z "$tag" ]; then
    build_from_source "uses: pinned to commit $sha, which no release tag points at"
  fi
  echo "Commit $sha is release $tag"
elif [[ "$want" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  tag="$want"
elif [[ "$want" =~ ^v[0-9]+$ || "$want" == "latest" ]]; then
  prefix="${want}."
  [ "$want" = "latest" ] && prefix="v"
  if ! releases=$(api_get "$api/repos/$repo/releases?per_page=100"); then
    echo "::error title=CogWorks::cannot list the releases of $repo at $api (rate limit or outage?); retry, or pin an exact release (uses: $repo@vX.Y.Z)" >&2
    exit 1
  fi
  tag=$(printf '%s' "$releases" |
    jq -r --arg p "$prefix" '[.[] | select(.draft == false and .prerelease == false and (.tag_name | startswith($p)))][0].tag_name // empty')
  if [ -z "$tag" ]; then
    echo "::error title=CogWorks::no release of $repo matches '$want'; pin a released version (uses: $repo@vX.Y.Z) or set build-from-source: true" >&2
    exit 1
  fi
else
  echo "::error title=CogWorks::'$want' (from the uses: ref or the version input) is neither a release tag nor a full commit SHA; use a release (vX.Y.Z, vX or latest), pin a full 40-character commit SHA, or set build-from-source: true" >&2
  exit 1
fi

case "${RUNNER_OS:-Linux}" in
  Linux) os=linux ;; macOS) os=darwin ;; Windows) os=windows ;;
  *) echo "::error title=CogWorks::unsupported runner OS ${RUNNER_OS}: use a Linux, macOS or Windows runner" >&2; exit 1 ;;
esac
case "${RUNNER_ARCH:-X64}" in
  X64) arch=amd64 ;; ARM64) arch=arm64 ;;
  *) echo "::error title=CogWorks::unsupported runner architecture ${RUNNER_ARCH}: use an X64 or ARM64 runner, or set build-from-source: true" >&2; exit 1 ;;
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
for f in "$asset" "$sums"; do
  if ! curl -fsSL --retry 3 -o "$work/$f" "$base/$f"; then
    echo "::error title=CogWorks::cannot download $base/$f: release $tag has no $os/$arch archive, or GitHub did not answer; retry, pin another release, or set build-from-source: true" >&2
    exit 1
  fi
done
expected=$(awk -v a="$asset" '$2 == a || $2 == "*"a {print $1}' "$work/$sums")
if [ -z "$expected" ]; then
  echo "::error title=CogWorks::$sums does not list $asset; pin another release or set build-from-source: true" >&2
  exit 1
fi
if command -v sha256sum >/dev/null 2>&1; then
  actual=$(sha256sum "$work/$asset" | awk '{print $1}')
else
  actual=$(shasum -a 256 "$work/$asset" | awk '{print $1}')
fi
if [ "$expected" != "$actual" ]; then
  echo "::error title=CogWorks::checksum mismatch for $asset: expected $expected, got $actual; do not run it: retry, and report it to the CogWorks maintainers if it persists" >&2
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
