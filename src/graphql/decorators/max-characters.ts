import { MaxLength } from "class-validator";

/**
 * At most `max` characters, refused with the words the services use when they
 * re-check the same limit ("url: must be at most 2048 characters", docs/api.md §4):
 * whichever door or layer refuses, the caller reads one message.
 */
export function MaxCharacters(max: number): PropertyDecorator {
  return MaxLength(max, { message: `must be at most ${max} characters` });
}
