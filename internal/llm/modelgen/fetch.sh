#!/bin/sh
# fetch.sh refreshes testdata/genai-prices.json from the npm package
# @pydantic/genai-prices: it installs the package under a temporary
# directory, dumps the Anthropic and OpenAI providers' models (only the
# fields the generator reads) and records the package's version, its
# publication date and the day the registry was asked (the release is the
# newest one the registry had that day: npm pack takes the latest tag).
# Run by `go generate ./internal/llm`; needs npm and node.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/testdata/genai-prices.json"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent @pydantic/genai-prices >/dev/null
tar xzf pydantic-genai-prices-*.tgz
version="$(node -p 'require("./package/package.json").version')"
published="$(npm view "@pydantic/genai-prices@$version" time --json | node -e '
let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]].slice(0,10)))' "$version")"
checked="$(date -u +%F)"
node --input-type=module -e '
const m = await import(process.argv[1]);
const keep = ["input_mtok","output_mtok","cache_read_mtok","cache_write_mtok"];
const trimPrices = p => Object.fromEntries(keep.filter(k => p[k] !== undefined).map(k => [k, p[k]]));
const providers = ["anthropic","openai"].map(id => {
  const p = m.findProvider({providerId: id});
  return {id, models: p.models.map(x => ({
    id: x.id, match: x.match, context_window: x.context_window, deprecated: x.deprecated,
    prices: Array.isArray(x.prices)
      ? x.prices.map(c => ({constraint: c.constraint, prices: trimPrices(c.prices)}))
      : trimPrices(x.prices),
  }))};
});
console.log(JSON.stringify({package: "@pydantic/genai-prices", version: process.argv[2], published: process.argv[3], checked: process.argv[4], providers}, null, 1));
' "$tmp/package/dist/index.js" "$version" "$published" "$checked" >"$out"
echo "fetch.sh: wrote $out from @pydantic/genai-prices $version ($published), newest on $checked"
