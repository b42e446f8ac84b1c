import { Accounts1763700000000 } from "./1763700000000-accounts.js";
import { CreditLedger1763800000000 } from "./1763800000000-credit-ledger.js";
import { ApiKeys1763900000000 } from "./1763900000000-api-keys.js";
import { Billing1764000000000 } from "./1764000000000-billing.js";
import { Scoring1764100000000 } from "./1764100000000-scoring.js";
import { JobLeases1764200000000 } from "./1764200000000-job-leases.js";
import { CreditBalances1764300000000 } from "./1764300000000-credit-balances.js";
import { FairQueue1764400000000 } from "./1764400000000-fair-queue.js";
import { Webhooks1764500000000 } from "./1764500000000-webhooks.js";
import { Lifecycle1764600000000 } from "./1764600000000-lifecycle.js";
import { Chat1764700000000 } from "./1764700000000-chat.js";
import { ResultAnswers1764800000000 } from "./1764800000000-result-answers.js";
import { IdempotencyDigests1764900000000 } from "./1764900000000-idempotency-digests.js";
import { MillisecondCursors1765000000000 } from "./1765000000000-millisecond-cursors.js";
import { JobErrorAction1765100000000 } from "./1765100000000-job-error-action.js";
import { DeliveryAttemptLimit1765200000000 } from "./1765200000000-delivery-attempt-limit.js";
import { WebhookFairShare1765220000000 } from "./1765220000000-webhook-fair-share.js";
import { RefundTime1765240000000 } from "./1765240000000-refund-time.js";
import { AccountApiVersion1765300000000 } from "./1765300000000-account-api-version.js";
import { IdempotentCreations1765320000000 } from "./1765320000000-idempotent-creations.js";
import { ApiKeyMode1765340000000 } from "./1765340000000-api-key-mode.js";
import { ProductMonitorBadge1765400000000 } from "./1765400000000-product-monitor-badge.js";
import { ResultSeries1765410000000 } from "./1765410000000-result-series.js";
import { ScorePopulation1765430000000 } from "./1765430000000-score-population.js";
import { MonitorSchedule1765440000000 } from "./1765440000000-monitor-schedule.js";
import { ChatQuestionOutcome1765450000000 } from "./1765450000000-chat-question-outcome.js";
import { ScoreBatches1765420000000 } from "./1765420000000-score-batches.js";

/** Applied in this order at start; never edit one that has shipped, add a new one. */
export const migrations = [
  Accounts1763700000000,
  CreditLedger1763800000000,
  ApiKeys1763900000000,
  Billing1764000000000,
  Scoring1764100000000,
  JobLeases1764200000000,
  CreditBalances1764300000000,
  FairQueue1764400000000,
  Webhooks1764500000000,
  Lifecycle1764600000000,
  Chat1764700000000,
  ResultAnswers1764800000000,
  IdempotencyDigests1764900000000,
  MillisecondCursors1765000000000,
  JobErrorAction1765100000000,
  DeliveryAttemptLimit1765200000000,
  WebhookFairShare1765220000000,
  RefundTime1765240000000,
  AccountApiVersion1765300000000,
  IdempotentCreations1765320000000,
  ApiKeyMode1765340000000,
  ProductMonitorBadge1765400000000,
  ResultSeries1765410000000,
  ScoreBatches1765420000000,
  ScorePopulation1765430000000,
  MonitorSchedule1765440000000,
  ChatQuestionOutcome1765450000000,
];
