/** An amount of money in cents, as the API sends it. */
export type Cents = number;
