import { chromium } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
const base = "http://127.0.0.1:3917";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
const samples = "/work/shared/data/imports";
for (const width of [390, 1280]) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const r = await page.request.post(`${base}/api/session`, { data: { username: "ann", password: "ann password 123" } });
  console.log("sign in", r.status());
  await page.goto(`${base}/account`);
  await page.locator('body[data-hydrated="true"]').waitFor({ timeout: 30000 });
  await page.getByLabel("Import a file").setInputFiles(`${samples}/standardnotes/Standard Notes Backup - Fri Jan 14 2022 10_31_29 GMT+0500.zip`);
  await page.getByRole("status").filter({ hasText: "Imported" }).waitFor({ timeout: 60000 });
  for (const d of await page.locator(".import-result details").all()) await d.evaluate((e) => (e.open = true));
  const tokenName = page.getByLabel(/name/i).first();
  try { await tokenName.fill(`laptop script ${width}`); await page.getByRole("button", { name: /make|create/i }).first().click(); await page.waitForTimeout(800); } catch (e) { console.log("token form:", e.message); }
  await page.screenshot({ path: `/tmp/shot-account-${width}.png`, fullPage: true });
  const axe = await new AxeBuilder({ page }).analyze();
  console.log(width, "axe violations:", axe.violations.map((v) => `${v.id}: ${v.nodes.length}`));
  await page.goto(`${base}/`);
  await page.screenshot({ path: `/tmp/shot-home-${width}.png` });
  const axe2 = await new AxeBuilder({ page }).analyze();
  console.log(width, "home axe:", axe2.violations.map((v) => `${v.id}: ${v.nodes.length}`));
  await context.close();
}
await browser.close();
