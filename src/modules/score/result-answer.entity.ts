import { Column, CreateDateColumn, Entity, JoinColumn, OneToOne, PrimaryColumn, type Relation } from "typeorm";
import { ScoreResultRecord } from "./score-result.entity.js";

/** A completed result's final REST answer, as JSON text (see ResultAnswerStore). */
@Entity({ name: "score_result_answers" })
export class ScoreResultAnswer {
  @PrimaryColumn({ name: "result_id", type: "uuid", primaryKeyConstraintName: "PK_score_result_answers" })
  resultId: string;

  @OneToOne(() => ScoreResultRecord, { onDelete: "CASCADE" })
  @JoinColumn({ name: "result_id", foreignKeyConstraintName: "FK_score_result_answers_result" })
  result?: Relation<ScoreResultRecord>;

  /** The REST operation's document hash when it was stored: another shape is not served. */
  @Column({ type: "text" })
  shape: string;

  @Column({ type: "text" })
  body: string;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;
}
