import { Account } from "../modules/accounts/account.entity.js";
import { ApiKey } from "../modules/accounts/api-keys/api-key.entity.js";
import { User } from "../modules/accounts/user.entity.js";
import { CreditEntry } from "../modules/billing/credit-entry.entity.js";

/** Every entity of the service, listed explicitly: no filesystem globs at runtime. */
export const entities = [Account, User, CreditEntry, ApiKey];
