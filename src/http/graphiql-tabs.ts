/**
 * The tabs GraphiQL opens with (when the browser has none stored): one per thing a
 * newcomer does first. Each is checked against schema.graphql by a unit test, so a
 * schema change that breaks one fails the build rather than the visitor.
 */
export interface StarterTab {
  readonly query: string;
  readonly variables?: string;
  /** JSON for the headers pane: only where the operation needs credentials. */
  readonly headers?: string;
}

/** What an API key looks like in the headers pane; ASCII, so a run without editing it is a clear 401. */
export const EXAMPLE_HEADERS = JSON.stringify({ Authorization: "Bearer pms_test_REPLACE_WITH_YOUR_KEY" }, null, 2);

const SCORE = `# Score a site, then follow its job live.
# 1. Run StartScore (▶ offers both operations):
#    it answers the job at once.
# 2. Put job.id in "jobId" (Variables) and run
#    FollowScoreProgress: steps stream over graphql-ws
#    until completed (resultId) or failed (why).
# Anonymous: one score per network per hour, followed
# from the same address. With an API key, fill the
# Headers pane as in the Usage tab.
mutation StartScore($input: StartScoreInput!) {
  startScore(input: $input) {
    job {
      id
      status
      kind
    }
    claimToken
  }
}

subscription FollowScoreProgress($jobId: ID!) {
  scoreProgress(jobId: $jobId) {
    status
    page
    pages
    url
    dimension
    dimensions
    resultId
    error {
      code
      message
      action
    }
  }
}
`;

const RESULT = `# A stored result, by id: public (share links, /r/{id}).
# Paste the resultId scoreProgress gave you.
query ScoreResult($id: ID!) {
  scoreResult(id: $id) {
    id
    url
    companyName
    totalScore
    stageName
    held
    expiresAt
    dimensions {
      dimensionId
      dimensionName
      pillar
      score
      confidence
      evidence
      reasoning
    }
    strengths
    gaps
  }
}
`;

const USAGE = `# Your account's usage this cycle: needs credentials.
# Put your API key in the Headers pane below (a
# pms_test_ key works on a non-production service).
query Usage {
  usage {
    plan
    period {
      start
      end
    }
    credits {
      limit
      used
      remaining
      packBalance
    }
    scores {
      limit
      used
    }
    apiCalls {
      limit
      used
    }
  }
}
`;

export const STARTER_TABS: readonly StarterTab[] = [
  {
    query: SCORE,
    variables: JSON.stringify(
      { input: { url: "https://example.com", kind: "quick" }, jobId: "paste job.id here" },
      null,
      2,
    ),
  },
  { query: RESULT, variables: JSON.stringify({ id: "paste a resultId here" }, null, 2) },
  { query: USAGE, headers: EXAMPLE_HEADERS },
];
