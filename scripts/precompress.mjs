// Run by scripts/post-build.sh (Trunk's post_build hook) after service-worker.sh: in release builds,
// writes NAME.gz (gzip -9) and NAME.br (brotli 11) beside every text and wasm file of the
// build, for static hosts that serve a precompressed file when the browser accepts it
// (nginx's gzip_static and brotli_static, Caddy's file_server precompressed, and others).
// A host that does not look for them serves the originals, compressed on the fly or not.
// The service worker caches the originals only (it lists the build before this runs).
// Debug builds (`trunk serve`) get none: Trunk's own server compresses.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('precompress.mjs: run by trunk as a post_build hook (no TRUNK_STAGING_DIR)');
  process.exit(1);
}
if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);

const COMPRESSIBLE = /\.(html|js|css|wasm|svg|json|webmanifest)$/;
for (const name of fs.readdirSync(dir, { recursive: true })) {
  const file = path.join(dir, name);
  if (!COMPRESSIBLE.test(name) || !fs.statSync(file).isFile()) continue;
  const data = fs.readFileSync(file);
  const gz = zlib.gzipSync(data, { level: 9 });
  const br = zlib.brotliCompressSync(data, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      [zlib.constants.BROTLI_PARAM_MODE]: name.endsWith('.wasm')
        ? zlib.constants.BROTLI_MODE_GENERIC
        : zlib.constants.BROTLI_MODE_TEXT,
    },
  });
  // a file too small to gain is served as it is
  if (gz.length < data.length) fs.writeFileSync(`${file}.gz`, gz);
  if (br.length < data.length) fs.writeFileSync(`${file}.br`, br);
}
