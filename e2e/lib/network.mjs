// Requests a test holds back or refuses. Each turns the service worker off first, so that
// every request meets the test's route (as in a browser that refuses service workers).

const noServiceWorker = (page) =>
  page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'serviceWorker', { get: () => undefined }));

/**
 * Holds every request for `url` (a route glob) until the returned `release()` is called;
 * each request's URL is added to `asked`, when given.
 */
export async function holdRequests(page, url, asked = []) {
  await noServiceWorker(page);
  let release;
  const gate = new Promise((r) => { release = r; });
  await page.route(url, async (route) => {
    asked.push(route.request().url());
    await gate;
    await route.continue();
  });
  return release;
}

/** Fails every request for `url` (a route glob). */
export async function refuseRequests(page, url) {
  await noServiceWorker(page);
  await page.route(url, (route) => route.abort());
}
