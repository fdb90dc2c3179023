// Renders assets/favicon.svg to the PNG icons the web app manifest lists
// (assets/icon-192.png, assets/icon-512.png) with the system Chromium. Run once after
// changing the icon: `node tools/make_icons.mjs`. The PNGs are committed.
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const svg = readFileSync('assets/favicon.svg', 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
for (const size of [192, 512]) {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  await page.setContent(
    `<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`,
  );
  await page.screenshot({ path: `assets/icon-${size}.png`, omitBackground: true });
  await page.close();
}
await browser.close();
