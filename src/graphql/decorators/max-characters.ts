import { MaxLength } from "class-validator";
import { Extensions } from "type-graphql";

/**
 * At most `max` characters, refused with the words the services use when they
 * re-check the same limit ("url: must be at most 2048 characters", docs/api.md §4):
 * whichever door or layer refuses, the caller reads one message. The limit also
 * rides on the GraphQL field's extensions (`maxLength`), where the OpenAPI
 * document reads it, so the published contract states the same number.
 */
export function MaxCharacters(max: number): PropertyDecorator {
  const validate = MaxLength(max, { message: `must be at most ${max} characters` });
  const publish = Extensions({ maxLength: max });
  return (target, property) => {
    validate(target, property);
    publish(target, property as string);
  };
}
