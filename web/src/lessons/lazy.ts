// What a lesson needs once it is open, loaded with the catalogue (not on the first open of the
// page): finding each stop's micro-step and checking its claim, and the "your turn" questions.
export { checkClaim, resolveStop } from './resolve';
export { isRight, parsePick, pickText, resolveAsk } from './question';
export { practiceLesson, recordPractice } from './practice';
export { hallLayout } from './hall';
export { previewLinks } from './preview';
