// Events as the API and webhooks show them: the store keeps facts (docs/choices.md, "Events are
// data"), so a test reading the store directly renders what it reads, as every reader does.
import { renderEvent } from '../../src/adapters/events/render-event.js';
import { shownEvent, type StoredEvent } from '../../src/application/ports/event-renderer.js';

export const shown = <E extends StoredEvent>(e: E): E => shownEvent(renderEvent, e);
