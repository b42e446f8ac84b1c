/**
 * The home page's one script, an ES module served at `/assets/home.js`: it starts
 * an anonymous quick score with GraphQL `startScore`, follows `scoreProgress` over
 * graphql-ws (the `graphql-transport-ws` protocol spoken directly: init, ack,
 * subscribe, next…complete), falls back to polling `scoreJob` if the socket
 * cannot be held, and ends on a link to the share page. Errors are shown from
 * their envelope (message, action, and the wait of a rate limit). Nothing is
 * written as HTML: every text goes in through textContent.
 */
export function homeScript(): string {
  return `const form = document.getElementById("score-form");
const endpoint = new URL(form.dataset.endpoint, location.href);
const input = document.getElementById("url");
const submit = document.getElementById("submit");
const problemBox = document.getElementById("problem");
const steps = document.getElementById("steps");
const outcome = document.getElementById("outcome");

const START = "mutation StartScore($input: StartScoreInput!) { startScore(input: $input) { job { id status } claimToken } }";
const STEP = "status page pages url dimension dimensions resultId error { code message action }";
const FOLLOW = "subscription FollowScoreProgress($jobId: ID!) { scoreProgress(jobId: $jobId) { " + STEP + " } }";
const POLL = "query PollScoreJob($id: ID!) { scoreJob(id: $id) { status resultId error { code message action } progress { " + STEP + " } } }";
const RESULT = "query HomeResult($id: ID!) { scoreResult(id: $id) { id companyName totalScore stageName expiresAt } }";

class Problem extends Error {
  constructor(message, action, code, retryAfter) {
    super(message);
    this.action = action;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/** A GraphQL error or a REST envelope, with the wait a refusal names (extensions.retryAfter or Retry-After). */
function problemOf(error, response) {
  const details = (error && error.extensions) || error || {};
  const wait = Number(details.retryAfter ?? (response ? response.headers.get("retry-after") : undefined));
  return new Problem(
    (error && error.message) || "Something went wrong.",
    details.action,
    details.code,
    Number.isFinite(wait) && wait > 0 ? wait : undefined,
  );
}

async function graphql(query, variables) {
  let response;
  try {
    response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new Problem("The service could not be reached.", "Check your connection and try again.");
  }
  const body = await response.json().catch(() => null);
  const error = body && ((body.errors && body.errors[0]) || body.error);
  if (error) throw problemOf(error, response);
  if (!body || !body.data) throw new Problem("The service answered " + response.status + ".", "Try again in a moment.");
  return body.data;
}

/** The steps of a job over graphql-ws; resolves with the completed step, rejects with a Problem, or with null if the socket failed. */
function follow(jobId, onStep) {
  return new Promise((resolve, reject) => {
    const url = new URL(endpoint);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(url, "graphql-transport-ws");
    let settled = false;
    const settle = (action, value) => {
      if (settled) return;
      settled = true;
      if (socket.readyState <= 1) socket.close(1000);
      action(value);
    };
    socket.onopen = () => socket.send(JSON.stringify({ type: "connection_init", payload: {} }));
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "connection_ack") {
        socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: FOLLOW, variables: { jobId }, operationName: "FollowScoreProgress" } }));
      } else if (message.type === "ping") {
        socket.send(JSON.stringify({ type: "pong" }));
      } else if (message.type === "next") {
        const error = message.payload && message.payload.errors && message.payload.errors[0];
        if (error) return settle(reject, problemOf(error));
        const step = message.payload && message.payload.data && message.payload.data.scoreProgress;
        if (!step) return;
        onStep(step);
        if (step.status === "completed") settle(resolve, step);
        else if (step.status === "failed") settle(reject, problemOf(step.error));
      } else if (message.type === "error") {
        settle(reject, problemOf((message.payload && message.payload[0]) || {}));
      } else if (message.type === "complete") {
        settle(resolve, null);
      }
    };
    socket.onclose = () => settle(resolve, null);
  });
}

/** When the socket could not carry the job to its end: its state every 1.5 s over HTTP. */
async function poll(jobId, onStep) {
  for (;;) {
    const job = (await graphql(POLL, { id: jobId })).scoreJob;
    if (job.progress) onStep(job.progress);
    if (job.status === "completed") return { status: "completed", resultId: job.resultId };
    if (job.status === "failed") throw problemOf(job.error);
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
}

function shortUrl(url) {
  const text = String(url).replace(/^https?:\\/\\//i, "").replace(/\\/$/, "");
  return text.length > 60 ? text.slice(0, 59) + "…" : text;
}

function describe(step) {
  switch (step.status) {
    case "queued":
      return "Queued: waiting for a worker";
    case "crawling":
      return step.page
        ? "Reading the site: page " + step.page + " of " + (step.pages || "?") + (step.url ? ", " + shortUrl(step.url) : "")
        : "Reading the site";
    case "scoring":
      return step.dimension ? "Scoring: dimension " + step.dimension + " of " + (step.dimensions || 27) : "Scoring";
    case "completed":
      return "Done";
    default:
      return "Failed";
  }
}

/** One line per stage of the job; a stage's line is updated as it goes on. */
function showStep(step) {
  let item = steps.lastElementChild;
  if (!item || item.dataset.status !== step.status) {
    if (item) item.classList.remove("current");
    item = document.createElement("li");
    item.dataset.status = step.status;
    item.classList.add("current");
    steps.append(item);
  }
  item.textContent = describe(step);
  steps.hidden = false;
}

function waitText(seconds) {
  if (seconds < 90) return seconds + " seconds";
  const minutes = Math.ceil(seconds / 60);
  return minutes < 90 ? minutes + " minutes" : Math.ceil(minutes / 60) + " hours";
}

function showProblem(error) {
  const problem = error instanceof Problem ? error : new Problem("Something went wrong in this page.", "Reload it and try again.");
  const title = document.createElement("strong");
  title.textContent = problem.message;
  const advice = document.createElement("span");
  advice.textContent = [problem.action, problem.retryAfter ? "Try again in " + waitText(problem.retryAfter) + "." : ""]
    .filter(Boolean)
    .join(" ");
  problemBox.replaceChildren(title, advice);
  if (problem.code) problemBox.dataset.code = problem.code;
  else delete problemBox.dataset.code;
  problemBox.hidden = false;
}

function paragraph(...parts) {
  const p = document.createElement("p");
  p.append(...parts);
  return p;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

function showOutcome(result, claimToken) {
  const link = element("a", "See the full report", "button");
  link.href = "/r/" + encodeURIComponent(result.id);
  link.id = "report";
  const parts = [
    paragraph(element("strong", result.companyName || shortUrl(input.value)), " scores ", element("strong", result.totalScore + "/100", "score"), ", " + result.stageName + "."),
    paragraph(link),
  ];
  if (result.expiresAt) {
    const until = new Intl.DateTimeFormat("en", { dateStyle: "long" }).format(new Date(result.expiresAt));
    const note = paragraph("Anyone with the link can read it. It is kept until " + until + " unless claimed");
    if (claimToken) note.append(": to keep it, link it to an account (POST /api/score/link) with this one-time claim token, shown only here: ", element("code", claimToken));
    else note.append(".");
    note.className = "muted";
    parts.push(note);
  }
  outcome.replaceChildren(...parts);
  outcome.hidden = false;
}

/** What people type: "example.com" means https://example.com. */
function address(text) {
  const trimmed = text.trim();
  return /^[a-z][a-z0-9+.-]*:\\/\\//i.test(trimmed) ? trimmed : "https://" + trimmed;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!input.value.trim()) {
    showProblem(new Problem("Enter a website address.", "For example https://example.com."));
    input.focus();
    return;
  }
  submit.disabled = true;
  problemBox.hidden = true;
  outcome.hidden = true;
  steps.replaceChildren();
  steps.hidden = true;
  document.body.dataset.state = "running";
  try {
    const started = (await graphql(START, { input: { url: address(input.value), kind: "quick" } })).startScore;
    showStep({ status: started.job.status });
    const done = (await follow(started.job.id, showStep)) || (await poll(started.job.id, showStep));
    showStep(done);
    const result = (await graphql(RESULT, { id: done.resultId })).scoreResult;
    showOutcome(result, started.claimToken);
    document.body.dataset.state = "done";
  } catch (error) {
    showProblem(error);
    document.body.dataset.state = "failed";
  } finally {
    submit.disabled = false;
  }
});
`;
}
