import { render } from 'preact';
import { preload } from './api/client.js';
import { App, firstVariables } from './app.js';
import { ComparisonDocument } from './gql/graphql.js';
import './styles.css';

// Ask for the list before the first render: the answer is on its way while the page draws.
preload(ComparisonDocument, firstVariables());
render(<App />, document.getElementById('app')!);
