import { isUuid } from "../../db/uuid.js";
import type { Transaction, Transactions } from "../../db/transaction.js";
import { AppError } from "../../errors.js";
import type { AccountRepository } from "../accounts/account.repository.js";
import { plans } from "../billing/plans.js";
import type { ProductPoint, ScoreResultRepository } from "../score/score-result.repository.js";
import type { MonitorInterval, Product } from "./product.entity.js";
import type { ProductRepository } from "./product.repository.js";
import { firstDueAt } from "./monitor-schedule.js";

/** What the owner may change on a product; a field left out stays as it is. */
export interface ProductChange {
  /** A schedule, or null to stop monitoring. */
  readonly monitor?: { readonly interval: MonitorInterval } | null;
  readonly publicBadge?: boolean | null;
}

/** The key a product is found by: origin and path, without query, fragment or trailing slash. */
export function productKey(url: URL): string {
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${url.host}${path}`;
}

export class ProductsService {
  constructor(
    private readonly products: ProductRepository,
    private readonly accounts: AccountRepository,
    private readonly results: ScoreResultRepository,
    private readonly transactions: Transactions,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * The account's product for this address, created when absent (PLAN_LIMIT_REACHED
   * past the plan's products), inside the caller's transaction so a refused
   * score creates nothing.
   */
  async productFor(tx: Transaction, accountId: string, url: URL): Promise<Product> {
    const key = productKey(url);
    const existing = await this.products.findByUrl(tx, accountId, key);
    if (existing) return existing;
    // Serializes product creation per account, so two concurrent first scores cannot both pass the limit.
    const account = await this.accounts.lock(tx, accountId);
    const again = await this.products.findByUrl(tx, accountId, key);
    if (again) return again;
    const plan = plans[account.plan];
    if (plan.products !== null && (await this.products.countInAccount(tx, accountId)) >= plan.products) {
      throw new AppError(
        "PLAN_LIMIT_REACHED",
        `The ${plan.name} plan includes ${plan.products} product${plan.products === 1 ? "" : "s"}, all in use.`,
        {
          action: "Score an existing product's address, or upgrade your plan for more products.",
        },
      );
    }
    return this.products.create(tx, { accountId, url: key, name: url.hostname });
  }

  /** The caller's product; another account's is NOT_FOUND (its existence is not revealed). */
  async get(accountId: string, id: string): Promise<Product> {
    const product = isUuid(id) ? await this.products.findInAccount(accountId, id) : null;
    if (!product) throw new AppError("NOT_FOUND", "No such product.");
    return product;
  }

  /**
   * The owner's settings (docs/api.md §13). Turning monitoring on is counted against
   * the plan's monitored products under the account row's lock, as product creation
   * is, so concurrent changes cannot pass the limit together. The same interval again
   * keeps the schedule (a retried PATCH changes nothing); a new one starts afresh.
   */
  async update(accountId: string, id: string, change: ProductChange): Promise<Product> {
    if (!isUuid(id)) throw new AppError("NOT_FOUND", "No such product.");
    return this.transactions.run(async (tx) => {
      const account = await this.accounts.lock(tx, accountId);
      const product = await this.products.lockInAccount(tx, accountId, id);
      if (!product) throw new AppError("NOT_FOUND", "No such product.");
      const schedule = await this.schedule(tx, product, account.plan, change.monitor);
      const settings = {
        ...schedule,
        publicBadge:
          change.publicBadge === undefined || change.publicBadge === null ? product.publicBadge : change.publicBadge,
      };
      await this.products.saveSettings(tx, product.id, settings);
      return Object.assign(product, settings);
    });
  }

  /** The schedule the change asks for: unchanged, stopped, kept, or a new first due time (within the plan). */
  private async schedule(
    tx: Transaction,
    product: Product,
    planId: keyof typeof plans,
    monitor: ProductChange["monitor"],
  ): Promise<{ monitorInterval: MonitorInterval | null; monitorNextRunAt: Date | null }> {
    const current = { monitorInterval: product.monitorInterval, monitorNextRunAt: product.monitorNextRunAt };
    if (monitor === undefined) return current;
    if (monitor === null) return { monitorInterval: null, monitorNextRunAt: null };
    if (monitor.interval === product.monitorInterval) return current;
    if (product.monitorInterval === null) {
      const plan = plans[planId];
      const limit = plan.monitoredProducts;
      if (limit !== null && (await this.products.countMonitored(tx, product.accountId, product.id)) >= limit) {
        throw new AppError(
          "PLAN_LIMIT_REACHED",
          limit === 0
            ? `The ${plan.name} plan does not include monitored products.`
            : `The ${plan.name} plan includes ${limit} monitored products, all in use.`,
          {
            action:
              limit === 0
                ? "Upgrade to Pro or Business to re-score products on a schedule."
                : "Stop monitoring another product (monitor: null), or upgrade your plan for more.",
            param: "monitor",
          },
        );
      }
    }
    const latest = await this.results.latestOfProduct(tx, product.id);
    return {
      monitorInterval: monitor.interval,
      monitorNextRunAt: firstDueAt(product.id, monitor.interval, latest?.createdAt, this.clock()),
    };
  }

  /** Each product's last `take` completed totals, oldest first (one statement for all of them). */
  async trends(productIds: readonly string[], take: number): Promise<Map<string, ProductPoint[]>> {
    const points = await this.results.trendsOfProducts(productIds, take);
    const byProduct = new Map<string, ProductPoint[]>(productIds.map((id) => [id, []]));
    for (const { productId, ...point } of points) byProduct.get(productId)?.push(point);
    return byProduct;
  }

  /** Newest first, keyset-paginated. */
  async list(
    accountId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ products: Product[]; nextCursor: string | null }> {
    const page = await this.products.page(accountId, limit, cursor);
    return { products: page.rows, nextCursor: page.nextCursor };
  }
}
