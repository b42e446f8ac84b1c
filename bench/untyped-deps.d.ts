// Minimal typings for the two benchmark-only dev dependencies that ship no
// types, so bench/ typechecks under `strict` without adding @types/* packages
// to the lockfile. Only the surface bench/http-frameworks.ts uses is declared.

declare module "autocannon" {
  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      method?: "GET" | "POST";
      headers?: Record<string, string>;
      body?: string;
    }
    interface Stats {
      average: number;
      p50: number;
      p99: number;
      total: number;
    }
    interface Result {
      duration: number;
      requests: Stats;
      latency: Stats;
      errors: number;
      timeouts: number;
      non2xx: number;
    }
  }
  function autocannon(opts: autocannon.Options): PromiseLike<autocannon.Result>;
  export = autocannon;
}

declare module "express" {
  import type { IncomingMessage, Server, ServerResponse } from "node:http";

  namespace e {
    interface Request extends IncomingMessage {
      body?: unknown;
    }
    interface Response extends ServerResponse {
      type(contentType: string): Response;
      send(body: string): Response;
    }
    type NextFunction = (err?: unknown) => void;
    type RequestHandler = (req: Request, res: Response, next: NextFunction) => void;
    interface Application {
      get(path: string, ...handlers: RequestHandler[]): Application;
      post(path: string, ...handlers: RequestHandler[]): Application;
      listen(port: number, host: string, callback: () => void): Server;
    }
    function json(): RequestHandler;
  }
  function e(): e.Application;
  export = e;
}
