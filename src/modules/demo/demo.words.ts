// biome-ignore-all format: word lists read better packed than one word per line
// Small word lists for the demo conference: enough variety to look real in a dashboard, few enough
// to keep in the repository (no faker download at run time).

export const firstNames = [
  "Ada", "Alan", "Amara", "Ana", "Anders", "Aisha", "Ben", "Bianca", "Carlos", "Chen", "Chiara", "Dana",
  "Daniel", "Deepa", "Elena", "Emeka", "Emma", "Farah", "Felix", "Grace", "Hana", "Hugo", "Ines", "Ivan",
  "Jana", "Jonas", "Julia", "Kai", "Kenji", "Lara", "Leon", "Lina", "Lucas", "Maja", "Marco", "Maria",
  "Mateo", "Mei", "Mila", "Nadia", "Noah", "Nora", "Olga", "Omar", "Paula", "Pedro", "Priya", "Rafael",
  "Rosa", "Sami", "Sara", "Sofia", "Tariq", "Theo", "Tomas", "Valentina", "Wei", "Yara", "Yusuf", "Zoe",
] as const;

export const lastNames = [
  "Adeyemi", "Andersson", "Bauer", "Becker", "Bianchi", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia",
  "Hansen", "Hoffmann", "Ivanova", "Jansen", "Kim", "Kowalski", "Kumar", "Lambert", "Larsen", "Lopez",
  "Martin", "Meyer", "Moreau", "Müller", "Nakamura", "Nguyen", "Novak", "Okafor", "Olsen", "Patel",
  "Peters", "Popescu", "Rossi", "Santos", "Schmidt", "Schneider", "Silva", "Singh", "Sato", "Tanaka",
  "Wagner", "Weber", "Wójcik", "Yilmaz", "Zhang", "Zimmermann", "Haddad", "Mensah", "Horvat", "Ferreira",
] as const;

export const companies = [
  "Acme Cloud", "Brightwave", "Bytehaus", "Cobalt Labs", "Datastream", "Driftwood Systems", "Elmstreet",
  "Fernweh Travel", "Globex", "Helix Health", "Inkwell Media", "Juniper Bank", "Kestrel AI", "Lumen Energy",
  "Mosaic Retail", "Nimbus Logistics", "Orbital Games", "Parcel & Co", "Quanta Insurance", "Redwood Robotics",
  "Sable Security", "Tidepool", "Umbra Analytics", "Vireo Mobility", "Wavelength", "Xylo Music",
  "Yonder Maps", "Zephyr Payments", "Northwind", "Contoso",
] as const;

export const jobTitles = [
  "Staff Engineer", "Principal Engineer", "Engineering Manager", "CTO", "Developer Advocate",
  "Senior Software Engineer", "Site Reliability Engineer", "Security Engineer", "Data Scientist",
  "Product Designer", "Frontend Lead", "Platform Engineer", "Machine Learning Engineer", "VP Engineering",
  "Open Source Maintainer", "Solutions Architect",
] as const;

/** Tracks with their colour and the topics their sessions are about. */
export const tracks = [
  { name: "Frontend", color: "#e4572e", topics: ["React Server Components", "CSS container queries", "Web Components", "accessibility", "design systems", "hydration"] },
  { name: "Backend & APIs", color: "#17bebb", topics: ["GraphQL federation", "API versioning", "event sourcing", "PostgreSQL", "rate limiting", "gRPC"] },
  { name: "Data & AI", color: "#ffc914", topics: ["vector search", "LLM evaluation", "feature stores", "streaming analytics", "data contracts", "RAG pipelines"] },
  { name: "DevOps & Cloud", color: "#76b041", topics: ["Kubernetes operators", "platform engineering", "OpenTelemetry", "GitOps", "cost control", "zero-downtime deploys"] },
  { name: "Security", color: "#2e282a", topics: ["supply-chain security", "passkeys", "threat modelling", "secret scanning", "OAuth", "SBOMs"] },
  { name: "Product & Design", color: "#8f2d56", topics: ["product discovery", "UX research", "developer experience", "onboarding flows", "pricing pages", "design tokens"] },
] as const;

// `{t}` is the session's topic, `{u}` another topic of the same track.
export const titleTemplates = [
  "{T} in production: what we learned",
  "A practical guide to {t}",
  "{T} at scale",
  "From {u} to {t}: a migration story",
  "Why your {t} is slow (and how to fix it)",
  "{T} without the hype",
  "Ten years of {t}",
  "Testing {t} with confidence",
  "The hidden cost of {t}",
  "{T} for small teams",
  "Debugging {t} like a detective",
  "{T} and {u}: better together",
] as const;

export const descriptionSentences = [
  "We walk through the architecture, the trade-offs and the mistakes we would not make again.",
  "Expect live demos, real numbers from production and a checklist to take home.",
  "The talk is aimed at engineers who have tried it once and want to go further.",
  "You will leave knowing when not to use it, which is just as important.",
  "Bring your laptop: the second half is hands-on.",
  "We share the dashboards, the runbooks and the incident that changed our minds.",
] as const;

export const roomNames = [
  "Main Hall", "Auditorium A", "Auditorium B", "Workshop Room 1", "Workshop Room 2", "Studio", "Loft",
] as const;
