import type { AlsoInTransaction } from "../../../db/transaction.js";
import { isUuid } from "../../../db/uuid.js";
import { AppError } from "../../../errors.js";
import type { PlanId } from "../account.entity.js";
import type { AccountRepository } from "../account.repository.js";
import { hashSecret, modeOf, newSecret, VISIBLE_PREFIX_LENGTH, type ApiKeyMode } from "./api-key-secret.js";
import type { ApiKey } from "./api-key.entity.js";
import type { ApiKeyRepository } from "./api-key.repository.js";

/** Live keys (programmatic access in production) are included on these plans only (the contract's Authentication §3). */
const API_PLANS: ReadonlySet<PlanId> = new Set(["business", "enterprise"]);
/** Writing last-used on every request would make each API call a row update; a minute is precise enough. */
const LAST_USED_RESOLUTION_MS = 60_000;
import { MAX_API_KEY_NAME_LENGTH as MAX_NAME } from "../../../limits.js";

export interface ApiKeyView {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly mode: ApiKeyMode;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

export interface ApiKeysOptions {
  /**
   * Whether test keys (`pms_test_…`) may be created and are accepted: outside
   * production only, so a key a developer pasted into a laptop's shell history can
   * never reach production data (docs/api.md §14).
   */
  readonly testKeys: boolean;
}

export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly accounts: AccountRepository,
    private readonly options: ApiKeysOptions,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * A new key; the secret is returned here and never again. A live key needs an API
   * plan; a test key is made on any plan, outside production only.
   */
  async create(
    accountId: string,
    userId: string,
    name: string,
    mode: ApiKeyMode = "live",
    alsoInTransaction?: AlsoInTransaction,
  ): Promise<{ key: ApiKeyView; secret: string }> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > MAX_NAME)
      throw new AppError("VALIDATION_FAILED", `name: must be 1 to ${MAX_NAME} characters`);
    if (mode === "test" && !this.options.testKeys) {
      throw new AppError("VALIDATION_FAILED", "mode: test keys can be created only on a service outside production", {
        action: "Create a live key (mode live, Business and Enterprise plans), or use a development service.",
      });
    }
    if (mode === "live" && !API_PLANS.has((await this.accounts.get(accountId)).plan)) {
      throw new AppError("PLAN_LIMIT_REACHED", "API keys are included on the Business and Enterprise plans.", {
        action: this.options.testKeys
          ? "Upgrade to Business or Enterprise to create live API keys; to try the API on this service, create a test key (mode test)."
          : "Upgrade to Business or Enterprise to create API keys.",
      });
    }
    const secret = newSecret(mode);
    const saved = await this.keys.create(
      {
        accountId,
        createdBy: userId,
        name: trimmed,
        mode,
        prefix: secret.slice(0, VISIBLE_PREFIX_LENGTH),
        secretHash: hashSecret(secret),
      },
      alsoInTransaction,
    );
    return { key: view(saved), secret };
  }

  /**
   * The key an idempotent creation made, for its replay: without the secret, which is
   * kept only as a hash and was shown once, in the first answer (docs/api.md §14).
   */
  async created(accountId: string, id: string): Promise<{ key: ApiKeyView; secret: null }> {
    const key = isUuid(id) ? await this.keys.findActive(accountId, id) : null;
    if (!key) throw new AppError("NOT_FOUND", "The API key this Idempotency-Key created has been revoked.");
    return { key: view(key), secret: null };
  }

  /** Active keys of the account, newest first. */
  async list(accountId: string): Promise<ApiKeyView[]> {
    return (await this.keys.listActive(accountId)).map(view);
  }

  /** Revoked at once: the next request with it is refused. Another account's key is "not found". */
  async revoke(accountId: string, id: string): Promise<ApiKeyView> {
    const key = isUuid(id) ? await this.keys.findActive(accountId, id) : null;
    if (!key) throw new AppError("NOT_FOUND", "No such API key.");
    await this.keys.revoke(key.id, this.clock());
    return view(key);
  }

  /**
   * The account a secret belongs to. Unknown, malformed, revoked, or created by
   * someone no longer a member: AUTH_REQUIRED; so is a test key sent to production.
   * A live key of an account that is no longer on an API plan: FORBIDDEN.
   */
  async authenticate(
    secret: string,
  ): Promise<{ accountId: string; keyId: string; mode: ApiKeyMode; apiVersion: string }> {
    const mode = modeOf(secret);
    if (!mode) throw new AppError("AUTH_REQUIRED", "The API key is not valid.");
    if (mode === "test" && !this.options.testKeys) {
      // Refused before any lookup: production does not even say whether the test key exists.
      throw new AppError("AUTH_REQUIRED", "Test keys (pms_test_…) work only on a service outside production.", {
        action: "Send a live key (pms_live_…) to this service, or send the test key to a development service.",
      });
    }
    const key = await this.keys.findUsable(hashSecret(secret));
    if (!key) throw new AppError("AUTH_REQUIRED", "The API key is not valid.");
    if (key.mode === "live" && !API_PLANS.has(key.account.plan)) {
      throw new AppError(
        "FORBIDDEN",
        "API access is included on the Business and Enterprise plans; this key's account is on another plan.",
      );
    }
    const now = this.clock();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await this.keys.recordUse(key.id, now);
    }
    return { accountId: key.accountId, keyId: key.id, mode: key.mode, apiVersion: key.account.apiVersion };
  }
}

const view = (key: ApiKey): ApiKeyView => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  mode: key.mode,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt,
});
