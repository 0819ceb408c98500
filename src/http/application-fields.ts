/** What an application body may carry but the API sets itself (ignored on write), for functions/. */
export { APPLICATION_READ_ONLY, APPLICATION_UPDATE_READ_ONLY } from '../schemas/applications';
