import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { keysetPage } from "../../db/keyset-page.js";
import { Product } from "./product.entity.js";

/** The `products` table: one row per account and normalized address. */
export class ProductRepository {
  constructor(private readonly dataSource: DataSource) {}

  findByUrl(tx: Transaction, accountId: string, url: string): Promise<Product | null> {
    return tx.findOneBy(Product, { accountId, url });
  }

  countInAccount(tx: Transaction, accountId: string): Promise<number> {
    return tx.countBy(Product, { accountId });
  }

  create(tx: Transaction, fields: { accountId: string; url: string; name: string }): Promise<Product> {
    return tx.save(tx.create(Product, fields));
  }

  /** The product takes the company name its newest result found (in the transaction that stores that result). */
  async rename(tx: Transaction, id: string, name: string): Promise<void> {
    await tx.update(Product, { id }, { name });
  }

  findInAccount(accountId: string, id: string): Promise<Product | null> {
    return this.dataSource.getRepository(Product).findOneBy({ id, accountId });
  }

  /** Newest first, keyset-paginated (one statement). */
  page(
    accountId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ rows: Product[]; nextCursor: string | null }> {
    const query = this.dataSource
      .getRepository(Product)
      .createQueryBuilder("product")
      .where("product.account_id = :accountId", { accountId });
    return keysetPage(query, "product", limit, cursor);
  }
}
