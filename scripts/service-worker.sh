#!/bin/sh
# Run by scripts/post-build.sh (Trunk's post_build hook): writes sw.js into the build.
#
# - release builds (`trunk build --release`, `make build`, `make test`): the worker of
#   assets/sw.template.js, with CACHE = attention-lens-<hash of every built file> and
#   FILES = every built file, so each build caches under a new name and an update is
#   never stuck behind an old cache;
# - debug builds (`trunk serve` during development): a worker that unregisters itself and
#   deletes the caches, so development never sees a stale page.
set -eu
dir="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
src="$(dirname "$0")/../assets/sw.template.js"
if [ "${TRUNK_PROFILE:-debug}" != "release" ]; then
  cat > "$dir/sw.js" <<'JS'
// Development build: no offline cache. This worker removes itself and any cache.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys().then((keys) => Promise.all(keys.map((k) => caches.delete(k))))
    .then(() => self.registration.unregister()));
});
JS
  exit 0
fi
files=$(cd "$dir" && find . -type f ! -name sw.js | sed 's|^\./||' | LC_ALL=C sort)
hash=$(cd "$dir" && printf '%s\n' $files | xargs sha256sum | sha256sum | cut -c1-16)
list="\"./\""
for f in $files; do list="$list, \"$f\""; done
sed -e "s|__CACHE__|attention-lens-$hash|" -e "s|__FILES__|[$list]|" "$src" > "$dir/sw.js"
