import { Account } from "../modules/accounts/account.entity.js";
import { ApiKey } from "../modules/accounts/api-keys/api-key.entity.js";
import { User } from "../modules/accounts/user.entity.js";
import { CreditBalance, CreditPackBalance } from "../modules/billing/credit-balance.entity.js";
import { CreditEntry } from "../modules/billing/credit-entry.entity.js";
import { Invitation } from "../modules/accounts/invitation.entity.js";
import { CheckoutSession } from "../modules/billing/checkout/checkout-session.entity.js";
import { ProviderEvent } from "../modules/billing/checkout/provider-event.entity.js";
import { DomainEventRecord } from "../events/domain-event.entity.js";
import { Product } from "../modules/products/product.entity.js";
import { IdempotencyKey } from "../modules/idempotency/idempotency-key.entity.js";
import { ScoreJob } from "../modules/score/score-job.entity.js";
import { ScoreDimensionRecord, ScoreResultRecord } from "../modules/score/score-result.entity.js";
import { Webhook, WebhookDelivery } from "../modules/webhooks/webhook.entity.js";
import { LifecycleAssessment } from "../modules/lifecycle/assessment.entity.js";
import { ChatConversation, ChatMessage } from "../modules/chat/chat.entity.js";
import { ScoreResultAnswer } from "../modules/score/result-answer.entity.js";
import { ScoreHistogramRow, ScorePopulationEntry } from "../modules/score/score-population.entity.js";
import { ScoreBatch, ScoreBatchItem } from "../modules/score/batch/score-batch.entity.js";

/** Every entity of the service, listed explicitly: no filesystem globs at runtime. */
export const entities = [
  Account,
  User,
  CreditEntry,
  CreditBalance,
  CreditPackBalance,
  ApiKey,
  Invitation,
  CheckoutSession,
  ProviderEvent,
  DomainEventRecord,
  Product,
  ScoreJob,
  ScoreResultRecord,
  ScoreDimensionRecord,
  IdempotencyKey,
  Webhook,
  WebhookDelivery,
  LifecycleAssessment,
  ChatConversation,
  ChatMessage,
  ScoreResultAnswer,
  ScorePopulationEntry,
  ScoreHistogramRow,
  ScoreBatch,
  ScoreBatchItem,
];
