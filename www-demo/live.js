// Live mode: searches a running OpenViking from this page through the engine's wasm HTTP
// host (`liveSearch`, gloo-net/fetch) and uses the answer as the search results. The query is
// the engine's own recall query for the current prompt and transcript; the settings then
// re-rank the same candidates on every edit without searching again.
//
// The API key is read from its field only when "Search" is clicked and handed straight to
// liveSearch: it is never stored (no localStorage/sessionStorage, no URL, no cookie), never
// logged, and never part of a message (the wasm side redacts it from everything it reports).
import { h, fill } from "./dom.js";

const $ = (id) => document.getElementById(id);

/**
 * @param {{ wasm: () => object, engine: () => object, request: () => {prompt: string, messages: object[]},
 *           apply: (search: {user: object, agent: object}, label: string) => void }} deps
 */
export function wireLive({ wasm, engine, request, apply }) {
  const button = $("live-search");
  const search = async () => {
    if (button.disabled) return;
    fill("live-error");
    fill("live-status");
    for (const el of document.querySelectorAll("#live .invalid")) el.classList.remove("invalid");
    const baseUrl = $("live-url").value.trim();
    const agentId = $("live-agent").value.trim();
    const current = engine();
    if (!current) return showError({ message: "Fix the settings error first: the engine needs a valid configuration to build the query." });
    let query;
    try {
      query = current.buildRecallQuery(request()).query;
    } catch (err) {
      return showError(err);
    }
    if (!query) {
      return showError({ message: "No recall query for this turn (every turn in the window was skipped): type a prompt first." });
    }
    const limit = current.searchLimit; // the engine's pool size: what the plugin asks for
    button.disabled = true;
    fill("live-status", `Searching ${baseUrl} …`);
    const started = performance.now();
    try {
      const result = await wasm().liveSearch({ baseUrl, apiKey: $("live-key").value, agentId, query, limit, lexical: current.config.recallLexical });
      const ms = performance.now() - started;
      const count = (r) => (Array.isArray(r?.memories) ? r.memories.length : 0);
      apply({ user: result.user, agent: result.agent }, `live ${baseUrl}`);
      fill("live-status",
        `Found ${count(result.user)} user and ${count(result.agent)} agent items` +
        `${result.userId ? ` for user ${result.userId}` : ""} in ${Math.round(ms)} ms. ` +
        "They are the search results now: every setting re-ranks them without searching again.",
        result.agentError ? h("span", { class: "help", id: "live-agent-note" }, ` Agent scope counted as empty: ${result.agentError}`) : null);
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
    }
  };
  button.addEventListener("click", search);
  for (const id of ["live-url", "live-key", "live-agent"]) {
    $(id).addEventListener("keydown", (e) => { if (e.key === "Enter") search(); });
  }
}

/** The failure, in words; for an unreachable server also the exact cors_origins to set. */
function showError(err) {
  fill("live-status");
  const parts = [h("div", { id: "live-error-message" }, String(err?.message ?? err))];
  if (err?.code === "HOST_FAILED" && err?.field === "baseUrl") {
    const origin = window.location.origin;
    parts.push(h("div", { class: "help", id: "live-cors-hint" },
      "If the server is running, let this page call it: in its ov.conf set ",
      h("code", {}, `"server": {"cors_origins": [${JSON.stringify(origin)}]}`),
      ` (this page's origin is ${origin}), then restart it.`));
  }
  const input = { baseUrl: "live-url", apiKey: "live-key", agentId: "live-agent" }[err?.field];
  if (input) $(input).classList.add("invalid");
  fill("live-error", parts);
}
