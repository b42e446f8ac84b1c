import { isUuid } from "../../src/db/uuid.js";
import type { AnswerStore } from "../route.js";
import type { ResultAnswerRepository } from "./result-answer.repository.js";

/**
 * The final REST answer of each completed result of an account (`GET /api/score/{id}`),
 * stored once when first served: later reads that miss the memory cache are one
 * primary-key read of ready JSON. Rows go with their result (foreign key, cascade):
 * a purged or deleted result is never served from here.
 */
export class ResultAnswerStore implements AnswerStore {
  constructor(private readonly answers: ResultAnswerRepository) {}

  async get(key: string, shape: string): Promise<string | undefined> {
    if (!isUuid(key)) return undefined;
    return this.answers.findBody(key, shape);
  }

  async put(key: string, shape: string, body: string): Promise<void> {
    if (!isUuid(key)) return;
    await this.answers.saveForKeptResult(key, shape, body);
  }
}
