/**
 * Every setting of the service, with its default and the environment variable that overrides it.
 * This is the only module that reads `process.env`; everything else receives a `Config`.
 * docs/configuration.md lists the same table for operators.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

export interface CheckpointConfig {
  /** Folder holding manifest.json, tokenizer.json and the ONNX graph(s). */
  dir: string;
  /** Opt-in: run the manifest's int8 graph instead of fp32 (never silent: logged and shown in /readyz). */
  int8: boolean;
}

export interface Config {
  port: number;
  /** Listening address (HOST; default 0.0.0.0, every interface). */
  host: string;
  dataDir: string;
  /** Body size limit for POST routes, bytes (413 payload_too_large above it). */
  bodyLimitBytes: number;
  /** Arrays and objects nested deeper than this in a body are refused (422 invalid_request with `loc`). */
  maxNestingDepth: number;
  /**
   * Lingering close (http/linger.ts): a response sent while its request is still arriving (a 413, a 429
   * or 401 decided from the headers, a 431) is followed by reading and discarding what the client still
   * sends, so that it reads the answer instead of a reset, for at most `timeMs` in all, `idleMs` between
   * bytes and `maxBytes`; then the connection closes.
   */
  linger: { timeMs: number; idleMs: number; maxBytes: number };
  logLevel: string;
  /** How long graceful shutdown waits for in-flight calls, ms. */
  shutdownGraceMs: number;
  models: {
    /** Root folder of checkpoint folders. */
    dir: string;
    /** Checkpoint name → folder; the manifest in the folder must carry the same name. */
    checkpoints: Record<string, CheckpointConfig>;
    /** Extra names that select a checkpoint directly (e.g. `core-multilingual`). */
    checkpointAliases: Record<string, string>;
    /** Names that route by the state's language. */
    routingAliases: string[];
    englishCheckpoint: string;
    multilingualCheckpoint: string;
    /** Build the fixture checkpoints on start when a configured folder is missing. */
    buildFixturesIfMissing: boolean;
  };
  engine: {
    /** Max questions per call (contract §5). */
    maxQuestions: number;
    /** intra-op threads for ONNX Runtime; default = cores this process may use. */
    threads: number;
    /**
     * Batches each checkpoint runs at once, each on its own session of `threads / lanes` threads on
     * its own worker thread (default: 2 when there are at least 2 threads). Side by side they keep
     * the cores busier than one session over all of them, which stalls whenever the event loop takes
     * a core from one of its threads (docs/performance.md). Each lane costs one more session's memory.
     */
    lanes: number;
    /**
     * Intra-op threads of each lane's session (STRUCTQA_LANE_THREADS, default threads / lanes, at least 1).
     * With fewer than `threads`, the first lane's worker also holds a wide session over all of them for a
     * lone row (see wideSession); with all of them, a lone row runs on a lane and needs no wide session.
     */
    laneThreads: number;
    /**
     * The first lane's session over all the threads, for a lone row that is not run inline
     * (STRUCTQA_WIDE_SESSION, default off; only where a lane has fewer than all the threads). Off: such a
     * row (over STRUCTQA_INLINE_MAX_TOKENS padded tokens) runs on a lane's share of the cores, beside the
     * other lanes, and each checkpoint holds one session less: the English checkpoint peaks at 409–440
     * MiB in the engine instead of 535–538, its graph + 400 MiB being 446. On: such a row, alone, runs on
     * both cores (a 250-word state: 44 against 69 ms at p50 on two cores); throughput at 1, 8 and 32
     * clients on 90-word states is the same either way (docs/performance.md).
     */
    wideSession: boolean;
    /** Padded tokens (rows × longest row) per model run. */
    batchTokenBudget: number;
    /**
     * Rows × longest row² per model run (STRUCTQA_BATCH_ATTENTION_BUDGET, default 512² = one full-window
     * row of the bundled checkpoints): the attention scores' size, which sets how much arena each session
     * keeps. Rows up to 256 tokens are not affected; longer ones run one or two at a time. 0: no bound.
     */
    batchAttentionBudget: number;
    /** Rows per model run. */
    batchMaxRows: number;
    /**
     * A batch that runs alone (nothing else queued or running) of at most this many padded tokens
     * runs on the event-loop thread with one more session of its graph, skipping the two thread
     * wake-ups of the hop to a worker thread (about 0.2–0.3 ms of a 1-question call on the 2-core
     * reference machine; the session costs about 95 MiB per checkpoint; docs/performance.md). 0: off,
     * and no such session.
     */
    inlineMaxTokens: number;
    /**
     * A checkpoint whose graph (with its external data) is larger than this many MiB gets one session
     * only: one lane, no wide and no inline session. Every session holds its own copy of the weights
     * (a 626 MiB graph peaked at 3,882 MiB with 2 lanes + inline, 1,128 MiB with one session, at the
     * same 1-question latency; docs/performance.md). 0: always one session.
     */
    singleSessionAboveMiB: number;
    /**
     * Folder of the shared-weights copies of the graphs (STRUCTQA_SHARED_WEIGHTS_DIR, default
     * `<data dir>/ort-cache`), or undefined when STRUCTQA_SHARED_WEIGHTS=0. Each graph is optimised once
     * into a copy with its weights as external data, which ONNX Runtime maps instead of copying: every
     * session of a checkpoint (lanes, wide, inline) reads the same page-cache pages, and no session
     * parses a protobuf copy of the weights or folds its own fp32 copy of fp16/int8-stored weights
     * (engine/session-graph.ts; docs/performance.md, "Memory per weight byte"). Answers are bit-identical.
     */
    sharedWeightsDir: string | undefined;
    /**
     * ONNX Runtime's CPU arena per session (STRUCTQA_ORT_ARENA, default on). Off: freed after each run,
     * which measured a higher peak (allocator churn) and slower runs on the bundled checkpoints.
     */
    ortArena: boolean;
    /**
     * MLAS weight pre-packing per session (STRUCTQA_ORT_PREPACK, default on): a private packed copy of
     * each MatMul's weights, bit-identical answers. Off: the MatMuls read the shared mapped weights (less
     * physical memory, same RSS, since Linux counts a mapped page once per session mapping it) at the cost
     * of repacking per run.
     */
    ortPrepack: boolean;
    /** Rows waiting per checkpoint before new calls get 529 overloaded. */
    queueMaxRows: number;
    /**
     * A call that could not start within this long (estimated from the queue ahead) gets 529 overloaded
     * at once, and a row that waited this long is dropped the same way: below the clients' 10 s attempt
     * timeout, so no work is done for a client that gave up (ms; 0: no bound).
     */
    queueMaxWaitMs: number;
    /** Retry-After sent with 529 overloaded / starting, ms. */
    overloadedRetryMs: number;
    startingRetryMs: number;
  };
  /** Where `structqa models pull` fetches published checkpoints. */
  hub: {
    endpoint: string;
    token?: string;
    /** Python that runs `structqa models import` (training/requirements-import.txt installed). */
    importPython: string;
  };
  /** The MCP endpoint (docs/mcp.md). */
  mcp: {
    /** Serve POST /mcp (STRUCTQA_MCP, default on). */
    enabled: boolean;
    /**
     * Browser origins allowed to call /mcp besides this machine's own (http(s)://localhost, 127.0.0.1,
     * [::1], any port): a request whose Origin is anything else is refused before its key is read.
     */
    allowedOrigins: string[];
  };
  accounts: {
    databaseUrl?: string;
    sqlitePath: string;
    redisUrl?: string;
    /** When Redis is unreachable: 'open' admits calls with in-process limits, 'closed' answers 529. */
    redisFailureMode: 'open' | 'closed';
    adminToken?: string;
    defaultAccountName: string;
    defaultMonthlyAllowance: number;
    defaultRequestsPerSecond: number;
    defaultProcessedTokensPerSecond: number;
    defaultInFlight: number;
    /** Where the first start writes the default account's key. */
    firstKeyFile: string;
    /** PostgreSQL schema holding the tables (created when missing); lets replicas or tests share a database. */
    databaseSchema: string;
    /** Prefix of every Redis key (rate buckets, in-flight slots). */
    redisKeyPrefix: string;
    /** A Redis command slower than this counts as Redis unreachable (see redisFailureMode), ms. */
    redisTimeoutMs: number;
    /**
     * An admitted call's allowance reservation is a lease of this length, renewed every third of it
     * while the call runs: the reservation (and Idempotency-Key) of a process that died lapses within it, ms.
     */
    reservationTtlMs: number;
    /**
     * An in-flight slot is a lease of this length, renewed every third of it while its call runs: the
     * slots of a replica that died are free again within one lease (ms).
     */
    slotLeaseMs: number;
    /**
     * How long after it arrived a call may still wait for the database, when the acknowledgement of its
     * usage record was lost, to learn whether the record was written (then it is answered 200) or not
     * (then it is written again); past this it is answered 503 (ms; below the clients' 10 s attempt timeout).
     */
    callBudgetMs: number;
  };
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number, got ${JSON.stringify(raw)}`);
  return Math.trunc(value);
}

function str(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** A comma-separated list (empty when unset). */
function list(env: Env, name: string): string[] {
  return (str(env, name) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
}

/** Cores this process may use (cgroup/affinity aware), not the host's count. */
export function usableCores(): number {
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

export const ENGLISH_CHECKPOINT = 'core-0.3.20';
export const MULTILINGUAL_CHECKPOINT = 'core-multilingual-0.3.20';

/** The trained checkpoints committed with the repository (`checkpoints/<name>` at its root). */
export const BUNDLED_CHECKPOINTS_DIR = fileURLToPath(new URL('../../checkpoints/', import.meta.url));

/** A checkpoint's default folder: the bundled trained one, or the fixture when it is not there. */
function defaultCheckpointDir(name: string, fixture: string): string {
  const bundled = path.join(BUNDLED_CHECKPOINTS_DIR, name);
  return fs.existsSync(path.join(bundled, 'manifest.json')) ? bundled : fixture;
}

export function loadConfig(env: Env = process.env): Config {
  // Relative paths are taken from where the command was typed: npm runs workspace scripts inside the
  // workspace folder but keeps the caller's folder in INIT_CWD.
  const base = str(env, 'INIT_CWD') ?? process.cwd();
  const dataDir = path.resolve(base, str(env, 'STRUCTQA_DATA_DIR') ?? './data');
  const modelsDir = path.resolve(base, str(env, 'STRUCTQA_MODELS_DIR') ?? path.join(dataDir, 'models'));
  const threads = int(env, 'STRUCTQA_THREADS', usableCores());
  const lanes = int(env, 'STRUCTQA_LANES', Math.min(2, threads));
  if (threads < 1 || lanes < 1) throw new Error(`STRUCTQA_THREADS and STRUCTQA_LANES must be at least 1, got ${threads} and ${lanes}`);
  const int8 = new Set(list(env, 'STRUCTQA_INT8'));
  const englishDir = path.resolve(modelsDir, str(env, 'STRUCTQA_ENGLISH_DIR') ?? defaultCheckpointDir(ENGLISH_CHECKPOINT, 'fixture-en'));
  const multilingualDir = path.resolve(
    modelsDir,
    str(env, 'STRUCTQA_MULTILINGUAL_DIR') ?? defaultCheckpointDir(MULTILINGUAL_CHECKPOINT, 'fixture-multilingual'),
  );
  return {
    port: int(env, 'PORT', 8080),
    host: str(env, 'HOST') ?? '0.0.0.0',
    dataDir,
    bodyLimitBytes: int(env, 'STRUCTQA_BODY_LIMIT_BYTES', 1024 * 1024),
    maxNestingDepth: int(env, 'STRUCTQA_MAX_NESTING_DEPTH', 64),
    linger: {
      timeMs: int(env, 'STRUCTQA_LINGER_TIME_MS', 30_000),
      idleMs: int(env, 'STRUCTQA_LINGER_TIMEOUT_MS', 5000),
      maxBytes: int(env, 'STRUCTQA_LINGER_MAX_BYTES', 64 * 1024 * 1024),
    },
    logLevel: str(env, 'LOG_LEVEL') ?? 'info',
    shutdownGraceMs: int(env, 'STRUCTQA_SHUTDOWN_GRACE_MS', 30_000),
    models: {
      dir: modelsDir,
      checkpoints: {
        [ENGLISH_CHECKPOINT]: { dir: englishDir, int8: int8.has(ENGLISH_CHECKPOINT) },
        [MULTILINGUAL_CHECKPOINT]: { dir: multilingualDir, int8: int8.has(MULTILINGUAL_CHECKPOINT) },
      },
      checkpointAliases: { 'core-multilingual': MULTILINGUAL_CHECKPOINT },
      routingAliases: [
        'legacy-latest',
        'legacy-preview',
        'legacy-1.13.0',
        'core-latest',
        'jev-latest',
        'jev-preview',
        'jev-1.13.0',
      ],
      englishCheckpoint: ENGLISH_CHECKPOINT,
      multilingualCheckpoint: MULTILINGUAL_CHECKPOINT,
      buildFixturesIfMissing: bool(env, 'STRUCTQA_BUILD_FIXTURES', true),
    },
    engine: {
      maxQuestions: 32,
      threads,
      lanes,
      laneThreads: Math.max(1, int(env, 'STRUCTQA_LANE_THREADS', Math.floor(threads / lanes))),
      wideSession: bool(env, 'STRUCTQA_WIDE_SESSION', false),
      batchTokenBudget: int(env, 'STRUCTQA_BATCH_TOKEN_BUDGET', 1024),
      batchAttentionBudget: int(env, 'STRUCTQA_BATCH_ATTENTION_BUDGET', 512 * 512),
      batchMaxRows: int(env, 'STRUCTQA_BATCH_MAX_ROWS', 64),
      inlineMaxTokens: int(env, 'STRUCTQA_INLINE_MAX_TOKENS', 256),
      singleSessionAboveMiB: int(env, 'STRUCTQA_SINGLE_SESSION_ABOVE_MB', 256),
      sharedWeightsDir: bool(env, 'STRUCTQA_SHARED_WEIGHTS', true)
        ? path.resolve(base, str(env, 'STRUCTQA_SHARED_WEIGHTS_DIR') ?? path.join(dataDir, 'ort-cache'))
        : undefined,
      ortArena: bool(env, 'STRUCTQA_ORT_ARENA', true),
      ortPrepack: bool(env, 'STRUCTQA_ORT_PREPACK', true),
      queueMaxRows: int(env, 'STRUCTQA_QUEUE_MAX_ROWS', 1024),
      queueMaxWaitMs: int(env, 'STRUCTQA_QUEUE_MAX_WAIT_MS', 5000),
      overloadedRetryMs: int(env, 'STRUCTQA_OVERLOADED_RETRY_MS', 1000),
      startingRetryMs: int(env, 'STRUCTQA_STARTING_RETRY_MS', 2000),
    },
    hub: {
      endpoint: str(env, 'STRUCTQA_HUB_ENDPOINT') ?? 'https://huggingface.co',
      token: str(env, 'HF_TOKEN'),
      importPython: str(env, 'STRUCTQA_IMPORT_PYTHON') ?? 'python3',
    },
    mcp: {
      enabled: bool(env, 'STRUCTQA_MCP', true),
      allowedOrigins: list(env, 'STRUCTQA_MCP_ALLOWED_ORIGINS'),
    },
    accounts: {
      databaseUrl: str(env, 'DATABASE_URL'),
      sqlitePath: path.resolve(base, str(env, 'STRUCTQA_SQLITE_PATH') ?? path.join(dataDir, 'structqa.sqlite')),
      redisUrl: str(env, 'REDIS_URL'),
      redisFailureMode: str(env, 'STRUCTQA_REDIS_FAILURE_MODE') === 'closed' ? 'closed' : 'open',
      adminToken: str(env, 'STRUCTQA_ADMIN_TOKEN'),
      defaultAccountName: str(env, 'STRUCTQA_DEFAULT_ACCOUNT') ?? 'default',
      defaultMonthlyAllowance: int(env, 'STRUCTQA_MONTHLY_ALLOWANCE', 2_000_000),
      defaultRequestsPerSecond: int(env, 'STRUCTQA_REQUESTS_PER_SECOND', 20),
      defaultProcessedTokensPerSecond: int(env, 'STRUCTQA_PROCESSED_TOKENS_PER_SECOND', 50_000),
      defaultInFlight: int(env, 'STRUCTQA_IN_FLIGHT', 8),
      firstKeyFile: path.resolve(base, str(env, 'STRUCTQA_FIRST_KEY_FILE') ?? path.join(dataDir, 'first-api-key.txt')),
      databaseSchema: str(env, 'STRUCTQA_DATABASE_SCHEMA') ?? 'public',
      redisKeyPrefix: str(env, 'STRUCTQA_REDIS_PREFIX') ?? 'structqa:',
      redisTimeoutMs: int(env, 'STRUCTQA_REDIS_TIMEOUT_MS', 250),
      reservationTtlMs: int(env, 'STRUCTQA_RESERVATION_TTL_MS', 15_000),
      slotLeaseMs: int(env, 'STRUCTQA_SLOT_LEASE_MS', 5000),
      callBudgetMs: int(env, 'STRUCTQA_CALL_BUDGET_MS', 9000),
    },
  };
}
