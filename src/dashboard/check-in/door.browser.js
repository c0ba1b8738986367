// The check-in page at the door, on a phone. Progressive enhancement: without this script the page
// still checks people in by code or by name through ordinary form posts. With it: the camera reads
// QR codes (BarcodeDetector where the browser has one, else the bundled @paulmillr/qr decoder), each
// code is checked in without a reload, answered with a big green or red result, a beep and a buzz,
// and the counter follows. Without a network, scans wait in localStorage and sync when it returns;
// the ones that did not go through cleanly (already checked in elsewhere, cancelled…) stay listed.
import { decodeQR } from "@paulmillr/qr/decode.js";

const door = document.querySelector("[data-door]");
if (door instanceof HTMLElement) startDoor(door);

/** @param {HTMLElement} door */
function startDoor(door) {
  const projectId = door.dataset.door ?? "";
  const queueKey = `eventgraph:door-queue:${projectId}`;
  const conflictKey = `eventgraph:door-conflicts:${projectId}`;
  const codeForm = door.querySelector("form.door-code-form");
  if (!(codeForm instanceof HTMLFormElement)) return;
  const scanUrl = codeForm.action;
  const csrf = codeForm.querySelector("input[name=_csrf]")?.getAttribute("value") ?? "";
  const search = /** @type {HTMLInputElement | null} */ (door.querySelector("#search-q"));
  const codeInput = /** @type {HTMLInputElement | null} */ (door.querySelector("#door-code"));
  const part = (/** @type {string} */ name) => door.querySelector(`[data-door-${name}]`);

  // --- the result, the sound and the buzz ---------------------------------------------------

  /** @param {{ok: boolean | null, title: string, detail: string}} answer */
  function show(answer) {
    const box = part("result");
    if (!(box instanceof HTMLElement)) return;
    box.hidden = false;
    box.className = `door-result ${answer.ok === null ? "door-result-queued" : answer.ok ? "door-result-ok" : "door-result-bad"}`;
    const title = part("title");
    const detail = part("detail");
    if (title) title.textContent = answer.title;
    if (detail) detail.textContent = answer.detail;
    // The verdict is above the inputs and the search results: bring it back into view (a phone
    // scrolled to a result card, or to the code field under its keyboard) and keep it there.
    box.scrollIntoView({ block: "nearest" });
  }

  /** @type {AudioContext | undefined} */
  let audio;
  /** @param {boolean} ok */
  function signal(ok) {
    try {
      audio ??= new AudioContext();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.type = ok ? "sine" : "square";
      tone.frequency.value = ok ? 880 : 220;
      gain.gain.value = 0.08;
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + (ok ? 0.15 : 0.45));
    } catch {
      // No audio (a browser policy, no output device): the colour and the text still say it.
    }
    navigator.vibrate?.(ok ? 80 : [200, 100, 200]);
  }

  // --- the counter ----------------------------------------------------------------------------

  /** @param {{checkedIn: number, expected: number, types: {name: string, checkedIn: number, expected: number}[]}} counts */
  function showCounts(counts) {
    const total = part("total");
    if (total) total.textContent = `${counts.checkedIn} / ${counts.expected}`;
    const list = part("types");
    if (!list) return;
    list.replaceChildren(
      ...counts.types.map((t) => {
        const item = document.createElement("li");
        const name = document.createElement("span");
        name.textContent = t.name;
        const count = document.createElement("span");
        count.className = "door-count";
        count.textContent = `${t.checkedIn} / ${t.expected}`;
        item.append(name, " ", count);
        return item;
      }),
    );
  }

  async function refreshCounts() {
    if (!navigator.onLine || !door.dataset.countsUrl) return;
    try {
      const response = await fetch(door.dataset.countsUrl, { headers: { accept: "application/json" } });
      if (response.ok) showCounts(await response.json());
    } catch {
      // Offline between the check and the call: the next tick tries again.
    }
  }

  // --- talking to the server ------------------------------------------------------------------

  /**
   * Posts one code like the form would. `offline` when the request never reached the server.
   * @param {string} code
   */
  async function post(code) {
    if (!navigator.onLine) return { offline: true };
    let response;
    try {
      response = await fetch(scanUrl, {
        method: "POST",
        headers: { accept: "application/json" },
        body: new URLSearchParams({ _csrf: csrf, code }),
      });
    } catch {
      return { offline: true };
    }
    const json = (response.headers.get("content-type") ?? "").includes("application/json");
    // A session that ended redirects to the login page (HTML): not an answer about the ticket.
    if (!response.ok || !json) return { status: response.status, loggedOut: !json };
    return { answer: await response.json() };
  }

  /** @param {string} key */
  const load = (key) => {
    try {
      return JSON.parse(localStorage.getItem(key) ?? "[]");
    } catch {
      return [];
    }
  };
  /** @param {string} key @param {unknown[]} value */
  const store = (key, value) => localStorage.setItem(key, JSON.stringify(value));

  /**
   * Checks a code in and shows the verdict. `from` is where the code came from: focus goes back
   * there for the next one (the code field after a typed code, the search after a result card's
   * button) without scrolling the verdict away; a camera scan leaves focus where it is.
   * @param {string} code @param {"code" | "search" | "camera"} from
   */
  async function checkIn(code, from) {
    const trimmed = code.trim();
    if (trimmed === "") return;
    const result = await post(trimmed);
    if (result.offline) {
      store(queueKey, [...load(queueKey), { code: trimmed, scannedAt: new Date().toISOString() }]);
      const waiting = load(queueKey).length;
      show({
        ok: null,
        title: "Saved on this device",
        detail: `No network: ${waiting} ${waiting === 1 ? "scan waits" : "scans wait"} and will sync when it returns.`,
      });
      signal(true);
      renderQueue();
    } else if (result.answer) {
      show(result.answer);
      signal(result.answer.ok);
      if (result.answer.counts) showCounts(result.answer.counts);
      markCard(trimmed, result.answer);
    } else {
      show({
        ok: false,
        title: "Not checked in",
        detail: result.loggedOut
          ? "You were logged out: reload the page and log in again."
          : `The server answered ${result.status}. Try again.`,
      });
      signal(false);
    }
    if (codeInput) codeInput.value = "";
    const next = from === "code" ? codeInput : from === "search" ? search : null;
    next?.focus({ preventScroll: true });
    if (from === "search") search?.select();
    part("result")?.scrollIntoView({ block: "nearest" });
  }

  /** A card of the search results shows the new state of the person just checked in. */
  function markCard(/** @type {string} */ code, /** @type {{ok: boolean, title: string}} */ answer) {
    for (const input of door.querySelectorAll(".card-list form[data-enhance=door] input[name=code]")) {
      if (!(input instanceof HTMLInputElement) || input.value !== code) continue;
      const form = input.closest("form");
      const badge = document.createElement("span");
      badge.className = `badge ${answer.ok ? "badge-success" : "badge-warning"}`;
      badge.textContent = answer.title;
      form?.replaceWith(badge);
    }
  }

  // --- the offline queue ----------------------------------------------------------------------

  let syncing = false;
  async function sync() {
    if (syncing || !navigator.onLine) return;
    syncing = true;
    try {
      for (;;) {
        const [next] = load(queueKey);
        if (!next) break;
        const result = await post(next.code);
        if (result.offline) break;
        store(queueKey, load(queueKey).slice(1));
        if (result.answer?.outcome !== "CHECKED_IN") {
          const title = result.answer
            ? result.answer.title
            : `Not synced (the server answered ${result.status})`;
          const detail = result.answer?.detail || next.code;
          store(conflictKey, [...load(conflictKey), { title, detail, scannedAt: next.scannedAt }]);
        }
        if (result.answer?.counts) showCounts(result.answer.counts);
      }
    } finally {
      syncing = false;
      renderQueue();
    }
  }

  function renderQueue() {
    const box = part("queue");
    if (!(box instanceof HTMLElement)) return;
    const waiting = load(queueKey).length;
    const conflicts = load(conflictKey);
    box.hidden = waiting === 0 && conflicts.length === 0;
    const text = part("queue-text");
    if (text) {
      text.textContent = [
        waiting > 0 ? `${waiting} ${waiting === 1 ? "scan waits" : "scans wait"} for the network.` : "",
        conflicts.length > 0 ? "Scans made offline that need a look:" : "",
      ]
        .filter(Boolean)
        .join(" ");
    }
    const list = part("conflicts");
    list?.replaceChildren(
      ...conflicts.map((/** @type {{title: string, detail: string, scannedAt: string}} */ c) => {
        const item = document.createElement("li");
        const at = new Date(c.scannedAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
        item.textContent = `${c.title}: ${c.detail} (scanned offline at ${at}, this device's time)`;
        return item;
      }),
    );
    const clear = part("clear");
    if (clear instanceof HTMLElement) clear.hidden = conflicts.length === 0;
  }

  part("clear")?.addEventListener("click", () => {
    store(conflictKey, []);
    renderQueue();
  });

  // --- forms: the typed code and the "Check in" buttons of the search results -----------------

  door.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.dataset.enhance !== "door") return;
    event.preventDefault();
    const code = form.querySelector("input[name=code]");
    if (code instanceof HTMLInputElement) checkIn(code.value, form === codeForm ? "code" : "search");
  });

  // --- the camera -----------------------------------------------------------------------------

  const scanButton = part("scan");
  const camera = part("camera");
  const video = camera?.querySelector("video");
  /** @type {MediaStream | null} */
  let stream = null;
  const canvas = document.createElement("canvas");

  /** The text of a QR code in the current frame, or null. */
  async function readFrame(/** @type {any} */ detector) {
    if (!(video instanceof HTMLVideoElement) || video.videoWidth === 0) return null;
    if (detector) {
      const found = await detector.detect(video);
      return found[0]?.rawValue ?? null;
    }
    // The JS decoder works on pixels; 640 px across is plenty for a ticket held up to the phone.
    const scale = Math.min(1, 640 / video.videoWidth);
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    const context = canvas.getContext("2d", { willReadFrequently: true });
    if (!context) return null;
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    const image = context.getImageData(0, 0, canvas.width, canvas.height);
    try {
      return decodeQR({ width: image.width, height: image.height, data: image.data });
    } catch {
      return null; // no QR code in this frame
    }
  }

  async function startCamera() {
    if (!(video instanceof HTMLVideoElement) || !(camera instanceof HTMLElement)) return;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: "environment" },
        audio: false,
      });
    } catch {
      show({ ok: false, title: "No camera", detail: "Allow the camera for this site, or type the code." });
      return;
    }
    video.srcObject = stream;
    await video.play();
    camera.hidden = false;
    if (scanButton instanceof HTMLElement) scanButton.hidden = true;
    const Detector = /** @type {any} */ (window).BarcodeDetector;
    const native = Detector && (await Detector.getSupportedFormats?.())?.includes("qr_code");
    const detector = native ? new Detector({ formats: ["qr_code"] }) : null;
    let last = "";
    let lastAt = 0;
    while (stream) {
      const text = await readFrame(detector).catch(() => null);
      // The same ticket stays in front of the camera for a moment: one check-in, not ten.
      if (text && (text !== last || Date.now() - lastAt > 4000)) {
        last = text;
        lastAt = Date.now();
        await checkIn(text, "camera");
      }
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
  }

  function stopCamera() {
    for (const track of stream?.getTracks() ?? []) track.stop();
    stream = null;
    if (camera instanceof HTMLElement) camera.hidden = true;
    if (scanButton instanceof HTMLElement) scanButton.hidden = false;
  }

  if (scanButton instanceof HTMLElement && navigator.mediaDevices?.getUserMedia) {
    scanButton.hidden = false;
    scanButton.addEventListener("click", startCamera);
  }
  part("stop")?.addEventListener("click", stopCamera);

  // Every phone at the door sees the others' check-ins as they commit (the live stream, which the
  // browser reopens by itself); the poll stays for a stream a proxy or an old browser cuts off.
  if (window.EventSource && door.dataset.liveUrl) {
    const live = new EventSource(door.dataset.liveUrl);
    live.addEventListener("counts", (event) => showCounts(JSON.parse(event.data)));
  }
  window.addEventListener("online", sync);
  setInterval(sync, 10_000);
  setInterval(refreshCounts, 20_000);
  renderQueue();
  sync();
}
