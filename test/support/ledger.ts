import type { DataSource } from "typeorm";
import { Transactions } from "../../src/db/transaction.js";
import { CreditBalanceRepository } from "../../src/modules/billing/credit-balance.repository.js";
import { CreditEntryRepository } from "../../src/modules/billing/credit-entry.repository.js";
import { CreditLedger } from "../../src/modules/billing/ledger.service.js";

/** A credit ledger over its real repositories on `dataSource`, optionally with a clock the test moves. */
export function creditLedgerOn(dataSource: DataSource, clock?: () => Date): CreditLedger {
  return new CreditLedger(
    new CreditEntryRepository(dataSource),
    new CreditBalanceRepository(dataSource),
    new Transactions(dataSource),
    clock,
  );
}
