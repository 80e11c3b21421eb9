// browse.js: opens pages in one headless Chromium (Debian's) over the DevTools protocol
// on a pipe (--remote-debugging-pipe: JSON messages ended by a NUL byte, fd 3 in, fd 4
// out; no network, no npm package needed) and records what each page reports.
//   node tests/e2e/browse.js OUT_PREFIX URL...
// For URL number i (0-based) it writes OUT_PREFIX.i.json: {"state": the text of
// #lcpsim-state, "error": the text of #error} once the page has reported a state (or after
// 10 s), and OUT_PREFIX.i.png, a 900 x 600 screenshot (BROWSE_SIZE=WxH: another size).
// A URL may end in "|focus=SELECTOR|keys=K1,K2": once the page has reported, the element
// gets the focus and the keys (ArrowLeft, ArrowRight, Home, End, Space) are pressed as a
// user would (default actions included), then the report is taken 600 ms later; or in
// "|size=WxH": the window is then resized to W x H.
// Exit 1 when the browser fails.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const [prefix, ...urls] = process.argv.slice(2);
const [W, H] = (process.env.BROWSE_SIZE || "900x600").split("x").map(Number);
if (!prefix || !urls.length) {
  console.error("usage: node browse.js OUT_PREFIX URL...");
  process.exit(2);
}
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "lcpsim-browse-"));
const chrome = spawn("chromium", [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + profile,
  "--window-size=" + W + "," + H, "--remote-debugging-pipe", "about:blank",
], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let stderr = "";
chrome.stdio[2].on("data", (b) => { stderr += b; });
const toChrome = chrome.stdio[3], fromChrome = chrome.stdio[4];

// Requests and their answers by id; events are ignored.
let nextId = 1, pending = new Map(), buffer = Buffer.alloc(0);
fromChrome.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  let end;
  while ((end = buffer.indexOf(0)) >= 0) {
    const msg = JSON.parse(buffer.subarray(0, end).toString("utf8"));
    buffer = buffer.subarray(end + 1);
    const p = msg.id && pending.get(msg.id);
    if (!p) continue;
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(p.method + ": " + msg.error.message));
    else p.resolve(msg.result);
  }
});
function send(method, params, sessionId) {
  const id = nextId++;
  const msg = { id, method, params: params || {} };
  if (sessionId) msg.sessionId = sessionId;
  toChrome.write(JSON.stringify(msg) + "\0");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const KEYS = { ArrowLeft: [37, ""], ArrowRight: [39, ""], Home: [36, ""], End: [35, ""], Space: [32, " "] };

async function visit(spec, i) {
  const [url, ...acts] = spec.split("|");
  const act = Object.fromEntries(acts.map((a) => a.split("=")));
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  await send("Emulation.setDeviceMetricsOverride",
             { width: W, height: H, deviceScaleFactor: 1, mobile: false }, sessionId);
  await send("Page.navigate", { url }, sessionId);
  const probe = "JSON.stringify({state: (document.getElementById('lcpsim-state') || {}).textContent || ''," +
                " error: (document.getElementById('error') || {}).textContent || ''})";
  let report = { state: "", error: "" };
  for (let t = 0; t < 200 && !report.state; ++t) { // up to 10 s
    await sleep(50);
    const r = await send("Runtime.evaluate", { expression: probe, returnByValue: true }, sessionId);
    if (r.result && typeof r.result.value === "string") report = JSON.parse(r.result.value);
  }
  if (act.size) {
    const [w, h] = act.size.split("x").map(Number);
    await send("Emulation.setDeviceMetricsOverride", { width: w, height: h, deviceScaleFactor: 1, mobile: false }, sessionId);
  }
  if (act.focus || act.size) {
    if (act.focus)
      await send("Runtime.evaluate", { expression: "document.querySelector(" + JSON.stringify(act.focus) + ").focus()" }, sessionId);
    for (const k of (act.keys || "").split(",").filter(Boolean)) {
      const [code, text] = KEYS[k];
      const key = k === "Space" ? " " : k;
      await send("Input.dispatchKeyEvent", { type: "keyDown", key, code: k, windowsVirtualKeyCode: code, text }, sessionId);
      await send("Input.dispatchKeyEvent", { type: "keyUp", key, code: k, windowsVirtualKeyCode: code }, sessionId);
    }
    await sleep(600);
    const r = await send("Runtime.evaluate", { expression: probe, returnByValue: true }, sessionId);
    if (r.result && typeof r.result.value === "string") report = JSON.parse(r.result.value);
  }
  await sleep(100); // let the frame reach the screen
  const shot = await send("Page.captureScreenshot", { format: "png" }, sessionId);
  fs.writeFileSync(prefix + "." + i + ".png", Buffer.from(shot.data, "base64"));
  fs.writeFileSync(prefix + "." + i + ".json", JSON.stringify(report));
  await send("Target.closeTarget", { targetId });
}

(async () => {
  let rc = 0;
  try {
    for (let i = 0; i < urls.length; ++i) await visit(urls[i], i);
  } catch (err) {
    console.error("browse.js: " + err.message + (stderr ? "\n" + stderr.slice(-2000) : ""));
    rc = 1;
  }
  const exited = new Promise((r) => chrome.once("exit", r));
  chrome.kill();
  await exited;
  try { fs.rmSync(profile, { recursive: true, force: true }); } catch (err) { /* temp */ }
  process.exit(rc);
})();
