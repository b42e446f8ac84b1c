import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  OneToMany,
  PrimaryGeneratedColumn,
  type Relation,
} from "typeorm";
import { User } from "./user.entity.js";

export const planIds = ["free", "pro", "business", "enterprise"] as const;
export type PlanId = (typeof planIds)[number];

/** The owner of every stored resource: products, results, keys, webhooks, credits. */
@Entity({ name: "accounts" })
@Check("CHK_accounts_plan", `"plan" IN ('free', 'pro', 'business', 'enterprise')`)
export class Account {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_accounts" })
  id: string;

  @Column({ type: "text" })
  name: string;

  @Column({ type: "text", default: "free" })
  plan: PlanId;

  /** Billing cycles (and plan-credit resets) start on this instant, monthly. */
  @Column({ name: "billing_cycle_anchor", type: "timestamptz" })
  billingCycleAnchor: Date;

  /** The billing provider's customer, once a Stripe checkout completed. */
  @Index("IDX_accounts_stripe_customer", { unique: true })
  @Column({ name: "stripe_customer_id", type: "text", nullable: true })
  stripeCustomerId: string | null;

  /** The Stripe subscription that sets `plan`; its updates and deletion change the plan. */
  @Index("IDX_accounts_stripe_subscription", { unique: true })
  @Column({ name: "stripe_subscription_id", type: "text", nullable: true })
  stripeSubscriptionId: string | null;

  /**
   * The dated API version a request without `Pms-Version` uses (docs/api.md §14): the
   * newest when the account was made. The column default is the first release, for
   * rows that existed before versions did.
   */
  @Column({ name: "api_version", type: "text", default: "2026-11-01" })
  apiVersion: string;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @OneToMany(() => User, (user) => user.account)
  members: Relation<User[]>;
}
