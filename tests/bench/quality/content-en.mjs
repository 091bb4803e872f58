// English content of the recall-quality benchmark: two personas (work, life), each a
// declarative spec that generate.mjs turns into memories, conversations and questions.
// Every template is a function of the values the seeded generator picks; nothing is random
// here. Spec format: see the comment at the top of generate.mjs.

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

export const EN = {
  lang: "en",
  /** A session date as memory text writes it. */
  date: (d) => `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`,
  /** How a user states a plain fact in a turn. */
  say: [(m) => `FYI: ${m}`, (m) => `Quick note for later: ${m}`, (m) => `Just so you know: ${m}`, (m) => m, (m) => `Remember this: ${m}`, (m) => `Worth writing down: ${m}`],
  join: " ",
  ack: ["Noted.", "Got it, I'll keep that in mind.", "Thanks, noted for later.", "Understood.", "Okay, I've got that down.", "Good to know, thanks."],
  decision: {
    first: [
      (t, o, d) => `On ${d} the team decided to use ${o} for ${t}.`,
      (t, o, d) => `Decision from ${d}: ${t} will use ${o}.`,
      (t, o, d) => `We agreed on ${d} to go with ${o} for ${t}.`,
      (t, o, d) => `As decided on ${d}, ${t} runs on ${o}.`,
    ],
    revise: [
      (t, old, o, d) => `On ${d} the team switched ${t} from ${old} to ${o}.`,
      (t, old, o, d) => `Change of plan on ${d}: ${t} moves from ${old} to ${o}.`,
      (t, old, o, d) => `As of ${d}, ${t} uses ${o} instead of ${old}.`,
      (t, old, o, d) => `We dropped ${old} for ${t} on ${d} and picked ${o}.`,
    ],
    sayFirst: [(m) => `We made a call today. ${m}`, (m) => m, (m) => `Decision made: ${m}`],
    sayRevise: [(m) => `Update: ${m}`, (m) => `Heads up, we changed our minds. ${m}`, (m) => m],
    ask: {
      decide: [(t) => `What did we decide for ${t}?`, (t) => `What are we using for ${t} now?`, (t) => `Which option did we settle on for ${t} in the end?`],
      whenFirst: [(t) => `When did we first make a decision about ${t}?`, (t) => `On what date did we originally pick something for ${t}?`],
      whenSwitch: [(t, o) => `When did we switch ${t} to ${o}?`, (t, o) => `On which date did ${t} move to ${o}?`],
      before: [(t, o) => `What did we use for ${t} before ${o}?`, (t, o) => `Before we moved to ${o}, what was ${t} on?`],
      changed: [(t) => `What changed about ${t}, and when?`, (t) => `How did our plan for ${t} change over time?`],
    },
  },
};

// ---------------------------------------------------------------------------------------------
// Persona 1: Maya, a backend engineer at a payments start-up
// ---------------------------------------------------------------------------------------------
export const WORK_EN = {
  id: "en-work",
  name: "Maya",
  lang: EN,
  entities: {
    service: { pool: ["billing", "orders", "search", "auth", "notifications", "payments", "inventory", "analytics", "checkout", "ledger"], pick: 7 },
    person: { pool: ["Priya", "Marco", "Yuki", "Fatima", "Lars", "Chen", "Sofia", "Omar", "Ingrid", "Tariq"], pick: 7 },
  },
  attributes: [
    {
      key: "db", of: "service", type: "entities", unique: true,
      values: ["Postgres 16", "MySQL 8", "MongoDB 7", "CockroachDB", "DynamoDB", "ClickHouse", "Cassandra", "SQLite"],
      variants: [
        (s, v) => `The ${s} service runs on ${v}.`,
        (s, v) => `${cap(s)} uses ${v} as its primary database.`,
        (s, v) => `Data for the ${s} service lives in ${v}.`,
        (s, v) => `The ${s} backend stores everything in ${v}.`,
        (s, v) => `${v} is the database behind ${s}.`,
      ],
      ask: [(s) => `Which database does the ${s} service use?`, (s) => `Where does ${s} keep its data?`, (s) => `What DB is the ${s} service on?`],
    },
    {
      key: "owner", of: "service", type: "entities", unique: true, values: { entity: "person" },
      variants: [
        (s, p) => `${p} owns the ${s} service.`,
        (s, p) => `The ${s} service is maintained by ${p}.`,
        (s, p) => `${p} is the tech lead for ${s}.`,
        (s, p) => `Questions about ${s} go to ${p}, who owns it.`,
      ],
      ask: [(s) => `Who owns the ${s} service?`, (s) => `Who should I talk to about changes in ${s}?`],
    },
    {
      key: "pool", of: "service", type: "entities",
      values: ["10", "16", "20", "32", "40", "64"],
      variants: [
        (s, v) => `The ${s} connection pool is capped at ${v} connections per pod.`,
        (s, v) => `Each ${s} pod opens at most ${v} database connections.`,
        (s, v) => `Max pool size for ${s} is ${v}.`,
      ],
      ask: [(s) => `How large is the connection pool for ${s}?`, (s) => `What's the max number of DB connections per ${s} pod?`],
    },
    {
      key: "region", of: "service", type: "entities",
      values: ["eu-west-1", "us-east-1", "ap-southeast-1", "eu-central-1", "us-west-2"],
      variants: [
        (s, v) => `${cap(s)} is deployed in ${v}.`,
        (s, v) => `The ${s} service runs in the ${v} region.`,
        (s, v) => `We host ${s} out of ${v}.`,
      ],
      ask: [(s) => `Which AWS region is ${s} deployed in?`, (s) => `Where do we host the ${s} service?`],
    },
    {
      key: "lang", of: "service", type: "entities",
      values: ["Go", "Rust", "Kotlin", "Python", "TypeScript", "Java"],
      variants: [
        (s, v) => `The ${s} service is written in ${v}.`,
        (s, v) => `${cap(s)} is a ${v} codebase.`,
        (s, v) => `${cap(s)} was built in ${v}.`,
        (s, v) => `All of the ${s} code is ${v}.`,
      ],
      ask: [(s) => `What programming language is the ${s} service written in?`, (s) => `Is ${s} a Go or a Java codebase, or something else?`],
    },
    {
      key: "city", of: "person", type: "entities",
      values: ["Lisbon", "Berlin", "Toronto", "Singapore", "Nairobi", "Austin", "Warsaw", "Osaka"],
      variants: [(p, v) => `${p} works remotely from ${v}.`, (p, v) => `${p} is based in ${v}.`, (p, v) => `${p} lives in ${v}.`],
      ask: [(p) => `Where is ${p} based?`, (p) => `Which city does ${p} work from?`],
    },
    {
      key: "pref", of: "user", type: "preferences",
      facets: [
        { values: ["Gruvbox dark", "Solarized light", "Dracula", "One Dark"], variants: [(u, v) => [`User prefers the ${v} theme in the editor.`, `I prefer the ${v} theme in my editor.`], (u, v) => [`User's editor theme is ${v}.`, `My editor theme is ${v}, by the way.`], (u, v) => [`User likes ${v} as a color scheme.`, `I really like ${v} as a color scheme.`]], ask: [() => `Which editor theme do I like?`, () => `What color scheme should you set up in my editor?`] },
        { values: ["Neovim", "VS Code", "IntelliJ IDEA", "Helix"], variants: [(u, v) => [`User writes code in ${v}.`, `I write all my code in ${v}.`], (u, v) => [`User's editor of choice is ${v}.`, `My editor of choice is ${v}.`], (u, v) => [`User prefers ${v} over other editors.`, `I prefer ${v} over other editors.`], (u, v) => [`User always uses ${v} for coding.`, `I always use ${v} for coding.`]], ask: [() => `Which editor do I use for coding?`, () => `What's my editor of choice?`] },
        { values: ["code first, explanation after", "a one-line summary before any detail", "bullet points, no long paragraphs"], variants: [(u, v) => [`User wants answers as ${v}.`, `I want answers as ${v}.`], (u, v) => [`User prefers responses formatted as ${v}.`, `I prefer responses formatted as ${v}.`]], ask: [() => `How do I like your answers formatted?`] },
        { values: ["before 11 am", "right after lunch", "late afternoon"], variants: [(u, v) => [`User prefers meetings ${v}.`, `I prefer to have meetings ${v}.`], (u, v) => [`User keeps meetings ${v} when possible.`, `When possible I keep meetings ${v}.`], (u, v) => [`Best time to schedule a meeting with the user is ${v}.`, `The best time to schedule a meeting with me is ${v}.`]], ask: [() => `When do I like to have meetings?`, () => `What time of day should you book a call with me?`] },
        { values: ["squash merges", "rebase and merge", "merge commits"], variants: [(u, v) => [`User prefers ${v} for pull requests.`, `For pull requests I prefer ${v}.`], (u, v) => [`User's team uses ${v} when landing PRs.`, `We land PRs with ${v}.`]], ask: [() => `How do I like pull requests to be merged?`] },
      ],
    },
  ],
  multihop: [
    { from: "service", hops: ["owner", "city"], ask: [(s) => `Where is the owner of the ${s} service based?`, (s) => `In which city does the person who owns ${s} work?`] },
    { from: "person", hops: ["~owner", "db"], ask: [(p) => `Which database does the service that ${p} owns run on?`, (p) => `What DB is behind ${p}'s service?`] },
    { from: "person", hops: ["~owner", "lang"], ask: [(p) => `What language is the service owned by ${p} written in?`] },
    { from: "value:db", hops: ["~db", "owner"], ask: [(v) => `Who owns the service that runs on ${v}?`] },
    { from: "person", hops: ["~owner", "region"], ask: [(p) => `Which region is ${p}'s service deployed in?`] },
  ],
  decisions: [
    { key: "cache", topic: "the session cache", options: ["Redis", "Memcached", "an in-process LRU cache", "DragonflyDB"] },
    { key: "ci", topic: "our CI pipeline", options: ["GitHub Actions", "GitLab CI", "Buildkite", "Jenkins"] },
    { key: "queue", topic: "the event bus", options: ["Kafka", "RabbitMQ", "NATS", "Amazon SQS"] },
    { key: "api", topic: "the public partner API", options: ["REST with OpenAPI", "GraphQL", "gRPC"] },
    { key: "logs", topic: "log storage", options: ["Loki", "Elasticsearch", "Datadog Logs"] },
    { key: "flags", topic: "feature flags", options: ["LaunchDarkly", "Unleash", "a homegrown flag service"] },
    { key: "deploy", topic: "production deploys", options: ["blue-green deploys", "canary releases", "rolling updates"] },
    { key: "release", topic: "the mobile release cadence", options: ["a weekly release", "a release every two weeks", "a monthly release"] },
  ],
  events: [
    {
      key: "incident", type: "events", count: 5,
      vars: { s: { entity: "service" }, symptom: ["ran out of database connections", "returned 502s for forty minutes", "lost its leader after a network partition", "filled its disk with WAL files", "leaked memory until the pods were OOM-killed", "double-charged a handful of customers"], fix: ["raising the pool limit", "rolling back the last deploy", "adding a retry with jitter", "turning on WAL archiving", "pinning the client library to the previous version", "adding an idempotency key check"] },
      variants: [
        (v, d) => `Incident on ${d}: the ${v.s} service ${v.symptom}; ${v.fix} fixed it.`,
        (v, d) => `On ${d} ${v.s} ${v.symptom}, and the fix was ${v.fix}.`,
        (v, d) => `Postmortem (${d}): ${v.s} ${v.symptom}. Resolved by ${v.fix}.`,
      ],
      ask: {
        when: [(v) => `When did the ${v.s} service ${v.symptom}?`, (v) => `What was the date of the ${v.s} incident where it ${v.symptom}?`],
        what: [(v) => `What fixed the ${v.s} incident where it ${v.symptom}?`, (v) => `How did we resolve it when ${v.s} ${v.symptom}?`],
      },
    },
    {
      key: "migration", type: "events", count: 3,
      vars: { s: { entity: "service" }, from: ["the old EKS cluster", "bare-metal hosts", "Heroku"], to: ["the new GKE cluster", "Fargate", "the shared Kubernetes platform"] },
      variants: [
        (v, d) => `On ${d} we moved ${v.s} from ${v.from} to ${v.to}.`,
        (v, d) => `${cap(v.s)} was migrated off ${v.from} onto ${v.to} on ${d}.`,
      ],
      ask: {
        when: [(v) => `When did ${v.s} move to ${v.to}?`],
        what: [(v) => `Where did we move ${v.s} when it left ${v.from}?`],
      },
    },
  ],
  distractors: [
    (r) => `The ${r.entity("service")} dashboard in Grafana shows p99 latency per endpoint.`,
    (r) => `${r.entity("person")} gave a talk about ${r.pick(["observability", "zero-downtime migrations", "Rust at work", "on-call hygiene"])} at the local meetup.`,
    (r) => `The ${r.entity("service")} team's standup is at ${r.pick(["9:15", "9:30", "10:00"])}.`,
    (r) => ((x) => [`User's cat is called ${x}.`, `My cat is called ${x}.`])(r.pick(["Pixel", "Mochi", "Biscuit"])),
    (r) => ((x) => [`User is training for a half marathon in ${x}.`, `I'm training for a half marathon in ${x}.`])(r.pick(["April", "October"])),
    (r) => `The office coffee machine on the third floor is broken again.`,
    (r) => `Team offsite is planned in ${r.pick(["Porto", "Kraków", "Valencia"])} this spring.`,
    (r) => `The ${r.entity("service")} README still links to the old wiki.`,
    (r) => `${r.entity("person")} is on parental leave until ${r.pick(["May", "June", "August"])}.`,
    (r) => `Security training is due by the end of the quarter.`,
    (r) => `The ${r.entity("service")} repository has ${r.pick(["1,200", "3,400", "870"])} open issues, mostly stale.`,
    (r) => ((x) => [`User's laptop is a ${x}.`, `My laptop is a ${x}.`])(r.pick(["14-inch MacBook Pro", "ThinkPad X1 Carbon", "Framework 13"])),
    (r) => `Lunch on Fridays is usually ${r.pick(["tacos", "ramen", "pizza"])} with the team.`,
    (r) => `The ${r.entity("service")} load test runs every night at ${r.pick(["2 am", "3 am"])} UTC.`,
  ],
  filler: [
    ["Can you help me write a SQL query that finds duplicate invoices?", "Sure — group by customer_id and amount, then filter with HAVING count(*) > 1."],
    ["What's the difference between a mutex and a semaphore again?", "A mutex admits one holder; a semaphore admits up to N."],
    ["Draft a short Slack message announcing the maintenance window.", "Here's a draft: \"Heads up: maintenance tonight 22:00–23:00 UTC, brief API errors possible.\""],
    ["Explain exponential backoff in two sentences.", "Each retry waits longer, usually doubling. Jitter spreads the retries so clients don't collide."],
    ["Review this regex for email validation: ^[^@]+@[^@]+$", "It accepts most addresses; it doesn't check the domain has a dot, which may be fine."],
    ["How do I list the biggest files in a git repo's history?", "Use git rev-list --objects --all piped through git cat-file --batch-check and sort by size."],
    ["Summarise what a circuit breaker does.", "It stops calls to a failing dependency for a while, then lets a few through to test recovery."],
    ["Give me a checklist for a production readiness review.", "Alerts, dashboards, runbook, capacity plan, rollback plan, on-call owner, load test."],
    ["What's a good name for a CLI that rotates secrets?", "Maybe \"keyturn\" or \"rotato\"."],
    ["Convert 1,500 requests per minute to requests per second.", "That's 25 requests per second."],
    ["thanks!", "You're welcome."],
    ["ok, next topic", "Sure, go ahead."],
  ],
  unrelated: "UNRELATED_EN",
};

// ---------------------------------------------------------------------------------------------
// Persona 2: Tom, a teacher renovating a house, with family, running and travel plans
// ---------------------------------------------------------------------------------------------
export const LIFE_EN = {
  id: "en-life",
  name: "Tom",
  lang: EN,
  entities: {
    relative: { pool: ["Anna", "Leo", "Grace", "Samuel", "Nora", "Felix", "Clara", "Hugo", "Iris"], pick: 6 },
    room: { pool: ["kitchen", "living room", "main bathroom", "guest bedroom", "home office", "hallway", "attic"], pick: 5 },
  },
  attributes: [
    {
      key: "relation", of: "relative", type: "entities", unique: true,
      values: ["sister", "brother", "cousin", "aunt", "uncle", "niece", "nephew", "best friend from school"],
      variants: [(p, v) => [`${p} is the user's ${v}.`, `${p} is my ${v}.`], (p, v) => [`User's ${v} is called ${p}.`, `My ${v} is called ${p}.`], (p, v) => [`${p}, the user's ${v}, visits often.`, `${p}, my ${v}, visits often.`]],
      ask: [(p) => `How am I related to ${p}?`, (p) => `Who is ${p} to me?`],
    },
    {
      key: "home", of: "relative", type: "entities",
      values: ["Porto", "Edinburgh", "Denver", "Melbourne", "Vancouver", "Dublin", "Seattle", "Montreal"],
      variants: [(p, v) => [`${p} lives in ${v}.`, `${p} lives in ${v}.`], (p, v) => [`${p} moved to ${v} a few years ago.`, `${p} moved to ${v} a few years ago.`], (p, v) => [`${p}'s home is in ${v}.`, `${p}'s home is in ${v}.`], (p, v) => [`${p} has an apartment in ${v}.`, `${p} has an apartment in ${v}.`]],
      ask: [(p) => `Where does ${p} live?`, (p) => `Which city is ${p} in these days?`],
    },
    {
      key: "allergy", of: "relative", type: "entities",
      values: ["peanuts", "shellfish", "gluten", "cats", "penicillin", "bee stings"],
      variants: [(p, v) => [`${p} is allergic to ${v}.`, `${p} is allergic to ${v}, careful.`], (p, v) => [`${p} has a ${v} allergy.`, `${p} has a ${v} allergy.`], (p, v) => [`Keep ${v} away from ${p}: allergy.`, `Keep ${v} away from ${p}, it's an allergy.`]],
      ask: [(p) => `What is ${p} allergic to?`, (p) => `Does ${p} have any allergies I should know about?`],
    },
    {
      key: "birthday", of: "relative", type: "entities",
      values: ["January", "March", "May", "July", "September", "November", "December"],
      variants: [(p, v) => [`${p}'s birthday is in ${v}.`, `${p}'s birthday is in ${v}.`], (p, v) => [`${p} celebrates a birthday every ${v}.`, `${p} celebrates a birthday every ${v}.`]],
      ask: [(p) => `In which month is ${p}'s birthday?`],
    },
    {
      key: "paint", of: "room", type: "entities",
      values: ["sage green", "warm white", "navy blue", "terracotta", "pale grey", "butter yellow"],
      variants: [(r, v) => `The ${r} will be painted ${v}.`, (r, v) => `Paint colour for the ${r}: ${v}.`, (r, v) => `The ${r} walls are going ${v}.`],
      ask: [(r) => `What colour are we painting the ${r}?`, (r) => `Which paint did I choose for the ${r}?`],
    },
    {
      key: "floor", of: "room", type: "entities",
      values: ["oak planks", "large porcelain tiles", "cork", "polished concrete", "herringbone parquet"],
      variants: [(r, v) => `The ${r} gets ${v} on the floor.`, (r, v) => `Flooring in the ${r} will be ${v}.`, (r, v) => `We're putting ${v} down in the ${r}.`, (r, v) => `The ${r} floor is going to be ${v}.`],
      ask: [(r) => `What flooring is going into the ${r}?`, (r) => `What's the floor in the ${r} going to be?`],
    },
    {
      key: "pref", of: "user", type: "preferences",
      facets: [
        { values: ["oat milk flat white", "black filter coffee", "double espresso"], variants: [(u, v) => [`User drinks an ${v} every morning.`, `I drink an ${v} every morning.`], (u, v) => [`User's usual coffee order is an ${v}.`, `My usual coffee order is an ${v}.`], (u, v) => [`User likes an ${v} to start the day.`, `I like an ${v} to start the day.`]], ask: [() => `How do I take my morning coffee?`, () => `What's my usual coffee order?`] },
        { values: ["aisle seats", "window seats"], variants: [(u, v) => [`User prefers ${v} on flights.`, `I prefer ${v} on flights.`], (u, v) => [`User always books ${v} when flying.`, `I always book ${v} when I fly.`]], ask: [() => `Which seat do I like on a plane?`] },
        { values: ["early mornings", "lunchtime", "evenings after work"], variants: [(u, v) => [`User likes to run in the ${v}.`, `I like to run in the ${v}.`], (u, v) => [`User's runs are usually in the ${v}.`, `My runs are usually in the ${v}.`], (u, v) => [`User prefers training in the ${v}.`, `I prefer training in the ${v}.`]], ask: [() => `When do I prefer to go running?`] },
        { values: ["vegetarian", "pescatarian"], variants: [(u, v) => [`User eats ${v}.`, `I eat ${v}, just so you know.`], (u, v) => [`User follows a ${v} diet.`, `I follow a ${v} diet.`]], ask: [() => `What kind of diet do I follow?`, () => `Any food restrictions I have?`] },
        { values: ["audiobooks", "history podcasts", "jazz playlists"], variants: [(u, v) => [`User listens to ${v} while commuting.`, `I listen to ${v} while commuting.`], (u, v) => [`On the commute the user plays ${v}.`, `On my commute I play ${v}.`]], ask: [() => `What do I listen to on my commute?`] },
      ],
    },
  ],
  multihop: [
    { from: "value:relation", hops: ["~relation", "home"], ask: [(v) => `Which city does my ${v} live in?`, (v) => `Where does my ${v} live these days?`] },
    { from: "value:relation", hops: ["~relation", "allergy"], ask: [(v) => `What is my ${v} allergic to?`] },
    { from: "value:relation", hops: ["~relation", "birthday"], ask: [(v) => `When is my ${v}'s birthday?`] },
  ],
  decisions: [
    { key: "counter", topic: "the kitchen countertop", options: ["quartz", "granite", "butcher block oak", "terrazzo"] },
    { key: "builder", topic: "the renovation contractor", options: ["Hartley & Sons", "BrightBuild", "Keane Renovations"] },
    { key: "trip", topic: "the summer trip", options: ["Kyoto", "Lisbon", "the Scottish Highlands", "Vancouver Island"] },
    { key: "race", topic: "the autumn race", options: ["the Berlin half marathon", "a local 10k", "the Amsterdam marathon"] },
    { key: "car", topic: "the new family car", options: ["a used Skoda Octavia estate", "a Toyota Corolla hybrid", "a second-hand Tesla Model 3"] },
    { key: "school", topic: "the kids' after-school club", options: ["chess club", "swimming lessons", "the robotics club"] },
    { key: "heating", topic: "the heating system", options: ["a gas boiler", "an air-source heat pump", "underfloor electric heating"] },
    { key: "vet", topic: "the dog's vet", options: ["Greenway Vets", "Pawsitive Care clinic", "the animal hospital on Mill Road"] },
  ],
  decisionText: {
    first: [
      (t, o, d) => [`On ${d} the user decided on ${o} for ${t}.`, `Today (${d}) I decided on ${o} for ${t}.`],
      (t, o, d) => `Decision from ${d}: ${t} will be ${o}.`,
      (t, o, d) => [`On ${d} the user and family went with ${o} for ${t}.`, `On ${d} we went with ${o} for ${t} as a family.`],
    ],
    revise: [
      (t, old, o, d) => [`On ${d} the user switched ${t} from ${old} to ${o}.`, `On ${d} I switched ${t} from ${old} to ${o}.`],
      (t, old, o, d) => `Change of plan on ${d}: ${t} is now ${o} instead of ${old}.`,
      (t, old, o, d) => `As of ${d}, ${t} is ${o}, no longer ${old}.`,
    ],
  },
  events: [
    {
      key: "appointment", type: "events", count: 4,
      vars: {
        who: { entity: "relative" },
        what: [["had knee surgery", "have knee surgery"], ["started a new job", "start the new job"], ["got engaged", "get engaged"], ["ran a first marathon", "run a first marathon"], ["adopted a puppy", "adopt the puppy"], ["bought a sailing boat", "buy the sailing boat"]],
      },
      variants: [(v, d) => `On ${d} ${v.who} ${v.what[0]}.`, (v, d) => `${v.who} ${v.what[0]} on ${d}.`, (v, d) => `News from ${d}: ${v.who} ${v.what[0]}.`],
      ask: { when: [(v) => `When did ${v.who} ${v.what[1]}?`], what: [(v) => `What big news did ${v.who} have?`] },
    },
    {
      key: "repair", type: "events", count: 3,
      vars: { room: { entity: "room" }, issue: ["a leak under the sink", "a cracked window", "mould behind the wardrobe", "a broken radiator valve", "a tripped fuse box"], cost: ["£180", "£420", "£95", "£1,300", "£260"] },
      variants: [(v, d) => `On ${d} a plumber fixed ${v.issue} in the ${v.room} for ${v.cost}.`, (v, d) => `Repair on ${d}: ${v.issue} in the ${v.room}, cost ${v.cost}.`],
      ask: { when: [(v) => `When was ${v.issue} in the ${v.room} repaired?`], what: [(v) => `How much did the repair of ${v.issue} in the ${v.room} cost?`] },
    },
  ],
  distractors: [
    (r) => ((x) => [`User's dog, ${x}, is scared of thunderstorms.`, `My dog ${x} is scared of thunderstorms.`])(r.pick(["Bruno", "Tilly", "Scout"])),
    (r) => `The ${r.entity("room")} gets the most sunlight in the afternoon.`,
    (r) => ((x) => [`User teaches ${x} at the secondary school.`, `I teach ${x} at the secondary school.`])(r.pick(["chemistry", "geography", "maths"])),
    (r) => `${r.entity("relative")} sent a postcard from ${r.pick(["Crete", "Iceland", "Morocco"])}.`,
    (r) => `The neighbours are renovating their ${r.pick(["loft", "garden shed", "driveway"])} too.`,
    (r) => ((x) => [`User's running shoes are ${x}.`, `My running shoes are ${x}.`])(r.pick(["Brooks Ghost", "Asics Novablast", "Hoka Clifton"])),
    (r) => `The garden needs new fencing before winter.`,
    (r) => `Bin collection is on ${r.pick(["Tuesdays", "Thursdays"])}.`,
    (r) => ((x) => [`User's book club is reading ${x} this month.`, `My book club is reading ${x} this month.`])(r.pick(["Middlemarch", "The Overstory", "Piranesi"])),
    (r) => `Parking permits for the street renew in ${r.pick(["March", "September"])}.`,
    (r) => `The ${r.entity("room")} still has the old wallpaper from the previous owners.`,
    (r) => `${r.entity("relative")} recommended a podcast about ${r.pick(["urban gardening", "space missions", "chess history"])}.`,
  ],
  filler: [
    ["Can you suggest a quick weeknight dinner?", "A vegetable stir-fry with noodles takes about 20 minutes."],
    ["How long should I rest between interval reps?", "For 400 m repeats, about 60–90 seconds of easy jogging."],
    ["Write a polite email asking for a quote on plastering.", "Here's a draft asking for a quote, a start date and whether materials are included."],
    ["What's a good way to remove paint from a door frame?", "A heat gun and a scraper, then sand; use a mask with old paint."],
    ["Convert 10 miles to kilometres.", "About 16.1 km."],
    ["What should I pack for a weekend hike?", "Layers, waterproof, water, snacks, a map, a small first-aid kit."],
    ["Help me plan a birthday card message for a colleague.", "\"Happy birthday! Thanks for all the help this year — enjoy your day.\""],
    ["thanks", "Any time."],
    ["good morning", "Good morning! What's on today?"],
    ["How do I bleed a radiator?", "Turn the heating off, open the bleed valve with a key until water comes out, then close it."],
    ["Is it worth getting a smart thermostat?", "Often yes if your schedule varies; savings depend on the house."],
  ],
  unrelated: "UNRELATED_EN",
};

/** Questions about nothing either persona said: the right recall is nothing at all. */
export const UNRELATED_EN = [
  "What is the boiling point of water on top of Mount Everest?",
  "Who wrote the novel One Hundred Years of Solitude?",
  "How many moons does Neptune have?",
  "What's the offside rule in ice hockey?",
  "Can you explain how photosynthesis works?",
  "What year did the Berlin Wall fall?",
  "How do I say thank you in Finnish?",
  "What is the tallest waterfall in the world?",
  "Explain the rules of cricket's LBW in simple terms.",
  "Which planet has the longest day?",
  "What causes the northern lights?",
  "How do bees communicate where flowers are?",
  "What is the plot of Hamlet in three sentences?",
  "Recommend a good strategy for learning to juggle.",
  "Why is the sky blue?",
  "What was the Treaty of Westphalia about?",
  "How deep is the Mariana Trench?",
  "What's the difference between a crocodile and an alligator?",
  "Who painted The Garden of Earthly Delights?",
  "How do you tie a bowline knot?",
  "What is the capital of Mongolia?",
  "How long does it take light from the Sun to reach Earth?",
  "What does a sommelier do?",
  "Explain how a violin produces sound.",
];
