import { App } from '../app';

describe('App', () => {
  it('renders', () => {});
});
