import React from 'react';
const { join } = require("./config");

export const App = () => <div className="app">Hello</div>;

function helper(a, b) {
  return a / b / 2;
}

module.exports = { helper };
