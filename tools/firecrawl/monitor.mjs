// Drives the service's Firecrawl-compatible monitor endpoints with
// Firecrawl's own JS SDK (pinned in package-lock.json): a monitor of a
// site that changes between two checks. Prints what each call answered,
// as one JSON object, for integration/changes_monitor_test.go to check.
//
//   node monitor.mjs API_URL API_KEY SITE_URL
//
// SITE_URL/__next moves the site to its second version.
import Firecrawl from '@mendable/firecrawl-js';

const [apiUrl, apiKey, site] = process.argv.slice(2);
const fc = new Firecrawl({ apiUrl, apiKey });
const report = {};

async function step(name, fn) {
  try {
    report[name] = await fn();
  } catch (e) {
    report[name] = { thrown: true, message: String(e?.message ?? e), status: e?.status ?? null, details: e?.details ?? null };
  }
}

// until calls fn until ok holds of its answer (or a minute passed).
async function until(fn, ok) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}

// idle waits until the monitor has no check going (a run ends just after
// its crawl), read through the service's own schedule endpoint.
async function idle(id) {
  await until(async () => (await (await fetch(`${apiUrl}/schedules/${id}`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()),
    (s) => s.runs?.running === 0);
}

const target = { type: 'crawl', url: `${site}/`, crawlOptions: { limit: 20, maxDiscoveryDepth: 2, sitemap: 'skip' } };
await step('create', () => fc.createMonitor({ name: 'shop', schedule: { cron: '0 3 * * *', timezone: 'Europe/Paris' }, targets: [target] }));
const id = report.create?.id;
await step('firstRun', () => fc.runMonitor(id));
await step('firstCheck', () => until(async () => (await fc.listMonitorChecks(id))[0], (c) => c && c.status !== 'running'));
await idle(id);
await fetch(`${site}/__next`);
await step('secondRun', () => fc.runMonitor(id));
await step('secondCheck', () => until(async () => (await fc.listMonitorChecks(id))[0], (c) => c && c.id !== report.firstCheck.id && c.status !== 'running'));
await step('checks', async () => (await fc.listMonitorChecks(id)).map((c) => ({ id: c.id, status: c.status, summary: c.summary })));
await step('detail', async () => {
  const d = await fc.getMonitorCheck(id, report.secondCheck.id, { limit: 3 });
  return { status: d.status, summary: d.summary, pages: d.pages.map((p) => ({ url: p.url.slice(site.length), status: p.status, diff: p.diff?.text ?? null })) };
});
await step('onlyChanged', async () => (await fc.getMonitorCheck(id, report.secondCheck.id, { status: 'changed' })).pages.map((p) => p.url.slice(site.length)));
await step('pause', () => fc.updateMonitor(id, { status: 'paused' }));
await step('get', () => fc.getMonitor(id));
await step('list', async () => (await fc.listMonitors()).map((m) => m.id));
await step('badCron', () => fc.createMonitor({ name: 'bad', schedule: { cron: '61 * * * *' }, targets: [target] }));
await step('scrapeTarget', () => fc.createMonitor({ name: 'pages', schedule: { cron: '0 3 * * *' }, targets: [{ type: 'scrape', urls: [`${site}/`] }] }));
await step('delete', () => fc.deleteMonitor(id));
await step('gone', () => fc.getMonitor(id));

console.log(JSON.stringify(report));
