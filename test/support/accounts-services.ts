import type { DataSource } from "typeorm";
import { Transactions } from "../../src/db/transaction.js";
import { AccountRepository } from "../../src/modules/accounts/account.repository.js";
import { AccountsService } from "../../src/modules/accounts/accounts.service.js";
import { ApiKeyRepository } from "../../src/modules/accounts/api-keys/api-key.repository.js";
import { ApiKeysService } from "../../src/modules/accounts/api-keys/api-keys.service.js";
import { InvitationRepository } from "../../src/modules/accounts/invitation.repository.js";
import { MembersService } from "../../src/modules/accounts/members.service.js";
import { UserRepository } from "../../src/modules/accounts/user.repository.js";

/** The accounts module's services over their real repositories, wired as src/app.ts wires them. */
export function accountsServices(dataSource: DataSource, clock?: () => Date, options = { testKeys: true }) {
  const transactions = new Transactions(dataSource);
  const accountRepository = new AccountRepository(dataSource);
  const userRepository = new UserRepository(dataSource);
  const apiKeyRepository = new ApiKeyRepository(dataSource);
  const members = new MembersService(
    accountRepository,
    userRepository,
    new InvitationRepository(dataSource),
    apiKeyRepository,
    transactions,
  );
  return {
    accounts: new AccountsService(accountRepository, userRepository, members, transactions, clock),
    members,
    apiKeys: new ApiKeysService(apiKeyRepository, accountRepository, options, clock),
  };
}
