import type { ContainerType, ResolverData } from "type-graphql";

type Constructor<T = unknown> = abstract new (...args: never[]) => T;

/**
 * Hands type-graphql the resolver instances built in the composition root, so
 * resolvers receive their services by constructor instead of importing singletons.
 */
export class ResolverContainer implements ContainerType {
  private readonly instances = new Map<Constructor, unknown>();

  register<T>(type: Constructor<T>, instance: T): this {
    this.instances.set(type, instance);
    return this;
  }

  get(type: Constructor, _resolverData: ResolverData): unknown {
    const instance = this.instances.get(type);
    if (!instance) throw new Error(`No instance registered for ${type.name}`);
    return instance;
  }
}
