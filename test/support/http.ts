import type { TestApp } from "./app.js";

export interface Caller {
  readonly cookie: string;
  readonly accountId: string;
  readonly userId: string;
}

/** Signs in through the local identity provider (POST /dev/login): a real signed `__session` cookie. */
export async function signIn(service: TestApp, email: string): Promise<Caller> {
  const response = await fetch(`${service.url}/dev/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
  if (response.status !== 200) throw new Error(`/dev/login answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { accountId: string; user: { id: string } };
  return {
    cookie: (response.headers.get("set-cookie") ?? "").split(";")[0]!,
    accountId: body.accountId,
    userId: body.user.id,
  };
}

export interface CallInit {
  readonly method?: string;
  readonly cookie?: string;
  readonly bearer?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** A fetch against the service that sends JSON bodies and the given credentials. */
export function apiClient(service: TestApp) {
  return (path: string, init: CallInit = {}) =>
    fetch(`${service.url}${path}`, {
      method: init.method ?? "GET",
      headers: {
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
        ...(init.cookie ? { cookie: init.cookie } : {}),
        ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
}

/** A GraphQL request over HTTP with the given credentials. */
export function graphqlClient(service: TestApp) {
  return async (
    query: string,
    variables: Record<string, unknown> = {},
    init: Omit<CallInit, "body" | "method"> = {},
  ) => {
    const response = await apiClient(service)("/graphql", { ...init, method: "POST", body: { query, variables } });
    return (await response.json()) as {
      data?: Record<string, any> | null;
      errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
    };
  };
}
