import type { GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import { createContext } from "../../src/graphql/context.js";
import { answerShape, executorFor, type Executor } from "../executor.js";
import type { AnswerStore, AnyRestRoute, RestInput } from "../route.js";

/**
 * Writes an immutable route's final answer to its durable store when the thing it
 * answers is finished (a result at its job's completion), so no reader ever pays
 * for building and storing it: a read that misses the memory cache is one
 * primary-key read from the first request on. The answer is the route's own
 * operation run on the same schema, as an anonymous caller, serialised exactly as
 * the route serves it: the same bytes a first read would have stored. It is not
 * written when the route would not cache it (`cacheable`), and a failure only
 * means the first read builds and stores it instead.
 */
export class FinalAnswers {
  private readonly run: Executor;
  private readonly shape: string;
  private readonly immutable: NonNullable<AnyRestRoute["immutable"]>;

  constructor(
    schema: GraphQLSchema,
    private readonly row: AnyRestRoute,
    private readonly store: AnswerStore,
    private readonly logger: Logger,
  ) {
    if (!row.immutable?.store) throw new Error(`REST route ${row.method} ${row.path} has no durable answer store`);
    this.immutable = row.immutable;
    this.run = executorFor(schema, row);
    this.shape = answerShape(row);
  }

  /** Stores the answer for these route parameters; resolves to whether it was stored. */
  async write(params: Record<string, string>): Promise<boolean> {
    const input: RestInput = { params, query: {}, body: undefined };
    const key = this.immutable.key(input);
    try {
      const context = createContext({
        requestId: `final-answer:${key}`,
        log: this.logger.child({ finalAnswer: `${this.row.path} ${key}` }),
        clientIp: "127.0.0.1",
      });
      const result = await this.run(this.row.variables(input), context);
      if (result.errors?.length || !result.data) {
        this.logger.warn({ key, err: result.errors?.[0] }, "could not build a final answer; its first read will");
        return false;
      }
      if (!(this.immutable.cacheable?.(result.data) ?? true)) return false;
      await this.store.put(key, this.shape, JSON.stringify(this.row.body(result.data)));
      return true;
    } catch (error) {
      this.logger.warn({ key, err: error }, "could not store a final answer; its first read will");
      return false;
    }
  }
}
