const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a caller-supplied id can be a row id at all: anything else is "not found" without asking Postgres (which would raise on a malformed uuid). */
export const isUuid = (value: unknown): value is string => typeof value === "string" && UUID.test(value);
