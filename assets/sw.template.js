// Attention Lens service worker: the app works offline after one visit.
//
// Written into dist/ by scripts/service-worker.sh after every `trunk build --release`:
// CACHE is "attention-lens-" + a hash of every file of the build, so a new build gets a
// new cache (and the old one is deleted when it activates); FILES lists the app shell.
// Everything is relative to the worker's own URL, so it works under any sub-path.
const CACHE = '__CACHE__';
const FILES = __FILES__;
const scoped = (f) => new URL(f, self.registration.scope).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(FILES.map(scoped)))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('attention-lens-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    // The page: the network first (a new build shows at once), the cached page offline.
    event.respondWith(
      fetch(request).catch(() =>
        caches.match(scoped('./'), { cacheName: CACHE, ignoreSearch: true })
          .then((hit) => hit || caches.match(scoped('index.html'), { cacheName: CACHE, ignoreSearch: true }))),
    );
    return;
  }
  // Everything else has a hashed name: the cache first.
  event.respondWith(caches.match(request, { cacheName: CACHE, ignoreSearch: true }).then((hit) => hit || fetch(request)));
});
