// Configuration comes from the environment, parsed once; a bad value stops the process with a
// message naming the variable instead of surfacing later as an odd failure.
import path from 'node:path';
import { z } from 'zod';
import { splitTrustedProxies, TRUST_PROXY_ALIAS, trustedEntryProblem } from './request/client-address.js';
import { DEFAULT_MAX_FUTURE_SKEW_MINUTES } from './ingest/validate.js';
import {
  availableCores,
  DEFAULT_DATA_DIR,
  DEFAULT_INGEST_WAIT_SECONDS,
  defaultBudgetMb,
  defaultWorkers,
} from './defaults.js';

export const MIN_BUDGET_MB = 128;

/**
 * Computed answers a process works on at once (MAX_IN_FLIGHT), and how long one beyond them may wait
 * (QUEUE_WAIT_MS). The cold answers are CPU work on one event loop: a few in progress keep it busy while
 * others wait for the database, more only lengthen every answer. At the bound an answer takes, on
 * average, the bound over the process's throughput (Little's law): with 8, the soak's costly answers took
 * 53–180 ms at the median, with 4 half that; but a fixed 4 (and its queue of 8) refused 88 % of sixteen
 * clients asking cold lists, which 8 answers in 30 ms. So 8 is the most, and the answers' time
 * (ANSWER_TIME_TARGET_MS) brings it down where answers are costly. Measured with `npm run soak` and
 * `npm run bench:overload` (README, "Overload").
 */
export const DEFAULT_MAX_IN_FLIGHT = 8;
export const DEFAULT_QUEUE_WAIT_MS = 1_000;
export const DEFAULT_LOOP_LAG_TARGET_MS = 50;
/**
 * The mean time of a computed answer, from its admission to its last byte, beyond which the bound shrinks
 * (ANSWER_TIME_TARGET_MS). A cold list takes 2–3 ms of CPU, a detail 5, an export 60: at 50 ms on average,
 * sixteen clients asking lists keep the whole bound, and the soak's mix of costly answers shrinks it.
 */
export const DEFAULT_ANSWER_TIME_TARGET_MS = 50;
export const DEFAULT_COMPUTE_THREAD_NICE = 5;

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** postgresql://… selects PostgreSQL; absent selects the embedded database in DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
    .optional(),
  DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  /** Load the generated sample market into an empty database on start. */
  SEED_SAMPLE: bool.default(true),
  SAMPLE_SEED: z.coerce.number().int().default(42),
  SAMPLE_DAYS: z.coerce.number().int().min(1).max(3650).default(400),
  /** Health turns degraded when the newest ingested data is older than this. */
  MAX_DATA_AGE_HOURS: z.coerce.number().positive().default(48),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Processes that serve HTTP; 1 is a single process. Default: the cores this process may use. */
  WORKERS: z.coerce.number().int().min(1).max(256).optional(),
  /** The memory of the whole service, every process: sizes each worker's heap and every cache. */
  MEMORY_BUDGET_MB: z.coerce.number().int().min(MIN_BUDGET_MB).max(1_048_576).optional(),
  /** How often to look for new data when the database cannot notify (the embedded one). */
  RELOAD_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(2_000),
  /** Requests per minute per client; 0 turns the limit off (the default). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(10_000_000).default(0),
  /**
   * The reverse proxies whose X-Forwarded-For is believed: addresses, CIDR ranges, or loopback, private,
   * linklocal. The client is the right-most forwarded address not among them (src/http/client-address.ts).
   */
  TRUSTED_PROXIES: z
    .string()
    .transform(splitTrustedProxies)
    .superRefine((entries, ctx) => {
      for (const entry of entries) {
        const problem = trustedEntryProblem(entry);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }
    })
    .optional(),
  /** The older switch: true stands for TRUSTED_PROXIES=loopback,private. */
  TRUST_PROXY: bool.optional(),
  /**
   * Where clients reach the service (scheme, host, port, path prefix), for the links of answers that must be
   * absolute (the Atom feed). Unset: the origin the request itself names (its Host header).
   */
  PUBLIC_URL: z
    .string()
    .url()
    .regex(/^https?:\/\/[^?#]*$/, 'must be an http(s) URL without query or fragment')
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  /** An answer not started within this many milliseconds is a 503. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * Computed answers one process works on at once (cached answers, health, metrics and streams are not
   * counted); more wait up to QUEUE_WAIT_MS for a slot, then are refused with 503. 0: no limit.
   */
  MAX_IN_FLIGHT: z.coerce.number().int().min(0).max(100_000).default(DEFAULT_MAX_IN_FLIGHT),
  /**
   * The event loop's lag (ms, the most in a tenth of a second) beyond which the limit of computed answers
   * in progress shrinks; below it the limit grows back toward MAX_IN_FLIGHT. 0: the limit stays fixed.
   */
  LOOP_LAG_TARGET_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_LOOP_LAG_TARGET_MS),
  /**
   * The mean time (ms) of a computed answer, from its admission to its last byte, over a tenth of a second,
   * beyond which the limit of computed answers in progress shrinks as it does for lag. 0: not watched.
   */
  ANSWER_TIME_TARGET_MS: z.coerce.number().int().min(0).max(600_000).default(DEFAULT_ANSWER_TIME_TARGET_MS),
  /**
   * A single process computes answers on a thread of their own, so that the thread accepting connections
   * answers cached answers, refusals, health and the metrics at once however busy the calculation is; it
   * costs FRONT_THREAD_MB more of the budget (src/memory.ts). false (the default): both on one thread.
   */
  COMPUTE_THREAD: bool.default(false),
  /**
   * The nice value of that thread (Linux): the kernel gives the thread that accepts connections the CPU
   * first when both want it. 0: the same as every other thread.
   */
  COMPUTE_THREAD_NICE: z.coerce.number().int().min(0).max(19).default(DEFAULT_COMPUTE_THREAD_NICE),
  /** How long a request beyond MAX_IN_FLIGHT may wait for a slot before it is refused; 0: refused at once. */
  QUEUE_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_QUEUE_WAIT_MS),
  /** On SIGTERM, how long requests in flight may take to finish before their connections are closed. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** How far a snapshot's observedAt may be ahead of the clock (clocks drift a little; time zones slip by hours). */
  INGEST_MAX_FUTURE_SKEW_MINUTES: z.coerce.number().min(0).max(1440).default(DEFAULT_MAX_FUTURE_SKEW_MINUTES),
  /** How long an ingest (or a migration, or the first-start seeding) waits for the writer before it; 0: not at all. */
  INGEST_WAIT_SECONDS: z.coerce.number().min(0).max(86_400).default(DEFAULT_INGEST_WAIT_SECONDS),
  /** Change streams (SSE and GraphQL subscriptions) one client address may hold open at once. */
  STREAMS_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(50),
  /**
   * What a change stream's connection may hold that its client has not read (in the process and in the
   * kernel's send queue), in KB: beyond it the stream is given nothing more, and cut if it stays so.
   */
  STREAM_BUFFER_MAX_KB: z.coerce.number().int().min(1).max(1_048_576).default(1024),
  /** How many of the newest change events a reconnecting stream may resume from; older: a reset event. */
  STREAM_REPLAY_EVENTS: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  /** How often an SSE change stream sends a comment to keep proxies from closing it. */
  STREAM_HEARTBEAT_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
});

export type Config = Readonly<{
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  seedSample: boolean;
  sampleSeed: number;
  sampleDays: number;
  maxDataAgeSeconds: number;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  workers: number;
  memoryBudgetMb: number;
  reloadPollMs: number;
  rateLimitPerMinute: number;
  /** TRUSTED_PROXIES' entries; empty: the socket's peer is the client, X-Forwarded-For is ignored. */
  trustedProxies: readonly string[];
  publicUrl: string | undefined;
  requestTimeoutMs: number;
  maxInFlight: number;
  queueWaitMs: number;
  loopLagTargetMs: number;
  /** ANSWER_TIME_TARGET_MS (0: not watched). */
  answerTimeTargetMs: number;
  computeThread: boolean;
  computeThreadNice: number;
  shutdownGraceMs: number;
  ingestMaxFutureSkewMs: number;
  ingestWaitMs: number;
  streamsPerIp: number;
  streamBufferMaxBytes: number;
  streamReplayEvents: number;
  streamHeartbeatMs: number;
}>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty variables count as unset, as in most shells' ${VAR:-default}.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  if (e.TRUSTED_PROXIES !== undefined && e.TRUST_PROXY !== undefined) {
    throw new ConfigError([
      'TRUST_PROXY: set TRUSTED_PROXIES or TRUST_PROXY, not both (TRUST_PROXY=true means ' +
        `TRUSTED_PROXIES=${TRUST_PROXY_ALIAS.join(',')})`,
    ]);
  }
  const workers = e.WORKERS ?? defaultWorkers(availableCores(), !e.DATABASE_URL);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    seedSample: e.SEED_SAMPLE,
    sampleSeed: e.SAMPLE_SEED,
    sampleDays: e.SAMPLE_DAYS,
    maxDataAgeSeconds: e.MAX_DATA_AGE_HOURS * 3600,
    logLevel: e.LOG_LEVEL,
    workers,
    memoryBudgetMb: e.MEMORY_BUDGET_MB ?? defaultBudgetMb(workers, !e.DATABASE_URL, e.COMPUTE_THREAD),
    reloadPollMs: e.RELOAD_POLL_MS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    trustedProxies: Object.freeze(e.TRUSTED_PROXIES ?? (e.TRUST_PROXY ? [...TRUST_PROXY_ALIAS] : [])),
    publicUrl: e.PUBLIC_URL,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    maxInFlight: e.MAX_IN_FLIGHT,
    queueWaitMs: e.QUEUE_WAIT_MS,
    loopLagTargetMs: e.LOOP_LAG_TARGET_MS,
    answerTimeTargetMs: e.ANSWER_TIME_TARGET_MS,
    computeThread: e.COMPUTE_THREAD,
    computeThreadNice: e.COMPUTE_THREAD_NICE,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    ingestMaxFutureSkewMs: e.INGEST_MAX_FUTURE_SKEW_MINUTES * 60_000,
    ingestWaitMs: e.INGEST_WAIT_SECONDS * 1000,
    streamsPerIp: e.STREAMS_PER_IP,
    streamBufferMaxBytes: e.STREAM_BUFFER_MAX_KB * 1024,
    streamReplayEvents: e.STREAM_REPLAY_EVENTS,
    streamHeartbeatMs: e.STREAM_HEARTBEAT_MS,
  });
}
