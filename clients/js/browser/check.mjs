// Loads pgcuckoo's ES module (src/, unchanged) in headless Chromium and runs
// browser/check.html against the shared test vectors; prints one line
// "browser: N passed, N failed (<user agent>)" and exits 0 only if all
// passed.  No npm dependency: a static server from node:http on 127.0.0.1
// serves src/, ../vectors/ and the page; the page posts its verdict back.
//
//   node browser/check.mjs [path to chromium]      (default: chromium)
//   BROWSER_PORT=5522 (default 0: any free port)
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const roots = { '/src/': join(here, '..', 'src'), '/vectors/': join(here, '..', '..', 'vectors') };
const TYPES = { '.js': 'text/javascript', '.json': 'application/json', '.html': 'text/html; charset=utf-8' };
const chromium = process.argv[2] || 'chromium';
const timeoutMs = Number(process.env.BROWSER_TIMEOUT_MS || 60000);

let done;
const result = new Promise((resolve) => { done = resolve; });

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (req.method === 'POST' && url.pathname === '/result') {
    let body = '';
    for await (const chunk of req) body += chunk;
    res.end('ok');
    done(JSON.parse(body));
    return;
  }
  let file = null;
  if (url.pathname === '/' || url.pathname === '/check.html') file = join(here, 'check.html');
  for (const [prefix, dir] of Object.entries(roots)) {
    if (url.pathname.startsWith(prefix)) {
      const rel = normalize(url.pathname.slice(prefix.length));
      if (!rel.startsWith('..')) file = join(dir, rel);
    }
  }
  try {
    const data = await readFile(file);
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
    res.end(data);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((resolve) => server.listen(Number(process.env.BROWSER_PORT || 0), '127.0.0.1', resolve));
const port = server.address().port;

const profile = await mkdtemp(join(tmpdir(), 'pgcuckoo-chromium-'));
// --no-sandbox: root (CI) cannot use Chromium's sandbox; --disable-dev-shm-usage:
// containers give /dev/shm little room
const browser = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
  `--user-data-dir=${profile}`, `http://127.0.0.1:${port}/check.html`], { stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
browser.stderr.on('data', (d) => { stderr += d; });
const exited = new Promise((resolve) => browser.on('exit', (code) => resolve({ exited: code })));
browser.on('error', (e) => done({ passed: 0, failed: 1, notes: [`cannot start ${chromium}: ${e.message}`] }));
const timer = new Promise((resolve) => setTimeout(() => resolve({ timeout: true }), timeoutMs));

const start = Date.now();
let v = await Promise.race([result, exited, timer]);
if (v.timeout) v = { passed: 0, failed: 1, notes: [`no verdict within ${timeoutMs} ms`] };
if (v.exited !== undefined) v = { passed: 0, failed: 1, notes: [`chromium exited (${v.exited}) without a verdict`, stderr.slice(-500)] };
browser.kill();
await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
server.close();
await rm(profile, { recursive: true, force: true }).catch(() => {});
for (const n of v.notes || []) console.log(`# ${n}`);
console.log(`browser: ${v.passed} passed, ${v.failed} failed (${v.userAgent || chromium}; ${Date.now() - start} ms)`);
process.exit(v.failed === 0 && v.passed > 0 ? 0 : 1);
